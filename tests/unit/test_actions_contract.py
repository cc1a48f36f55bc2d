"""The deployment's skill.json read into the catalog, and the documents beside the state.

Its JSON Schema becomes rules (types, lengths, patterns, enums, bounds, format uri, defaults);
the older flat shape is read; what roost does not know is reported once and never enforced;
config > skill.json > built-in; a bad document is reported and the last good copy kept.
"""

from __future__ import annotations

import copy
import json

import httpx
import pytest

from tui.actions.catalog import CATALOG, validate_payload
from tui.actions.contract import ContractError, build_catalog, parse_skill
from tui.actions.deployment_docs import DeploymentDocs, deployment_root, parse_repo_manifest
from tui.network.disk_cache import DiskCache
from tui.sandbox.deployment import skill_document


def skill(actions: dict, **extra) -> dict:
    return {"actions": actions, **extra}


def schema_entry(name: str, fields: dict, required: list[str], **entry) -> dict:
    return {
        "method": entry.pop("method", "github_issue"),
        "label": entry.pop("label", name.replace("_", "-")),
        "description": entry.pop("description", f"Do {name}."),
        "payload": {
            "type": "object",
            "required": ["action", "payload"],
            "properties": {
                "action": {"const": name},
                "payload": {"type": "object", "required": required, "properties": fields},
                "signature": {"type": "string"},
            },
        },
        **entry,
    }


def test_the_real_skill_json_is_read_whole(real_contract_dir):
    contract = parse_skill(json.loads((real_contract_dir / "skill.json").read_text()))
    assert contract.notices == () and contract.base_repo == "kody-w/rappterbook"
    assert len(contract.actions) == 17
    poke = contract.actions["poke"]
    assert (poke.source, poke.method) == ("skill.json", "issue")
    assert poke.field("message").max_length == 280 and not poke.field("message").required
    assert poke.field("target_agent").refers_to == "agent"
    profile = contract.actions["update_profile"]
    assert profile.field("callback_url").nullable and profile.field("callback_url").format == "uri"
    assert profile.field("gateway_type").choices == ("openclaw", "openrappter", "")
    verify = contract.actions["verify_agent"]  # the older flat shape, method "issues"
    assert (verify.label, verify.method) == ("Verify Agent", "issue")
    assert [(f.name, f.required) for f in verify.fields] == [("github_username", True)]
    topic = contract.actions["create_topic"]
    assert (topic.field("constitution").min_length, topic.field("constitution").max_length) == (
        50,
        2000,
    )
    assert topic.field("slug").pattern == "^[a-z0-9-]+$" and topic.field("slug").max_length == 32
    karma = contract.actions["transfer_karma"]
    assert (karma.field("amount").min_value, karma.field("amount").max_value) == (1, 100)
    # the contract's rules are enforced: the processor would refuse these
    assert validate_payload(poke, {"target_agent": "a", "message": "m" * 281})
    assert validate_payload(contract.actions["register_agent"], {
        "name": "n", "framework": "f", "bio": "b", "public_key": "rsa:x",
    })  # fmt: skip
    assert not validate_payload(contract.actions["register_agent"], {
        "name": "n", "framework": "f", "bio": "b", "public_key": "ed25519:AAAA",
    })  # fmt: skip


def test_the_real_manifest_names_the_repository_and_its_categories(real_contract_dir):
    manifest = parse_repo_manifest(json.loads((real_contract_dir / "manifest.json").read_text()))
    assert manifest.repo_id.startswith("R_") and manifest.owner == "kody-w"
    assert manifest.categories["general"].startswith("DIC_")
    assert len(manifest.categories) == 17


def test_the_newest_contract_adds_receipts_posts_and_comments():
    document = skill_document("https://raw.example.test/o/r/main", "o", "r")
    contract = parse_skill(document)
    assert contract.post_method == "graphql_discussion" and contract.comments
    assert contract.receipts.applied.endswith("/state/inbox/processed/issue-{issue_number}.json")
    assert contract.token_env[:2] == ("RAPPTERBOOK_TOKEN", "DISCUSSIONS_TOKEN")
    catalog = build_catalog(contract)
    assert catalog["create_post"].method == "discussion"
    assert catalog["comment"].method == "discussion_comment"
    run = catalog["run_python"]
    assert (run.field("timeout").default, run.field("timeout").max_value) == (30, 120)
    assert run.field("code").type == "text" and run.field("code").max_length == 65_536


@pytest.mark.parametrize(
    ("contributions", "offered"),
    [
        ({"comment": "c", "react": "r"}, {"comment", "reply", "react"}),
        ({"comment": "c"}, {"comment", "reply"}),
        ({"react": "r"}, {"react"}),
        ({}, set()),
    ],
)
def test_the_answers_offered_are_those_the_contract_lists(contributions, offered):
    document = skill_document("https://raw.example.test/o/r/main", "o", "r")
    document["onramp"]["contributions"] = contributions
    catalog = build_catalog(parse_skill(document))
    assert {"comment", "reply", "react"} & set(catalog) == offered
    assert all(catalog[name].source == "skill.json" for name in offered)


def test_without_a_post_block_the_seeds_issue_form_stays():
    contract = parse_skill(skill_document("https://x.test", "o", "r", classic=True))
    catalog = build_catalog(contract)
    assert (catalog["create_post"].method, catalog["create_post"].source) == ("issue", "built-in")
    assert not {"comment", "reply", "react"} & set(catalog)
    assert build_catalog(None)["create_post"].method == "issue"


def test_a_field_of_type_string_or_null_and_every_rule():
    contract = parse_skill(
        skill(
            {
                "tune": schema_entry(
                    "tune",
                    {
                        "motto": {"type": ["string", "null"], "maxLength": 5, "minLength": 2},
                        "code": {"type": "string", "pattern": "^[A-Z]{3}"},
                        "home": {"type": "string", "format": "uri"},
                        "mood": {"type": "string", "enum": ["calm", "loud"]},
                        "level": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3},
                        "loud": {"type": "boolean"},
                        "tags": {"type": "array", "items": {"type": "string", "maxLength": 4}},
                    },
                    ["code"],
                )
            }
        )
    )
    spec = contract.actions["tune"]
    assert spec.field("motto").nullable and spec.field("motto").type == "str"
    assert spec.field("level").default == 3 and spec.field("tags").type == "list[str]"
    good = {"motto": None, "code": "ABCdef", "home": "https://x.test/", "mood": "calm"}
    assert validate_payload(spec, {**good, "level": 9, "loud": True, "tags": ["a", "bb"]}) == []
    problems = validate_payload(
        spec,
        {
            "motto": "x",
            "code": "abc",
            "home": "not a url",
            "mood": "meh",
            "level": 10,
            "loud": "yes",
            "tags": ["toolong"],
        },
    )
    assert {p.field for p in problems} == {
        "motto",
        "code",
        "home",
        "mood",
        "level",
        "loud",
        "tags[0]",
    }
    assert validate_payload(spec, {})[0].message == "is required"


def test_keywords_roost_does_not_know_are_shown_not_enforced_and_reported_once():
    fields = {
        "count": {"type": "integer", "multipleOf": 5},
        "note": {"type": "string", "format": "email", "x-secret": True},
        "again": {"type": "integer", "multipleOf": 3},
    }
    contract = parse_skill(skill({"tally": schema_entry("tally", fields, [])}))
    spec = contract.actions["tally"]
    assert spec.field("count").unchecked == ("multipleOf: 5",)
    assert "multipleOf: 5 (not checked by roost)" in spec.field("count").limits()
    assert validate_payload(spec, {"count": 7, "note": "not an address"}) == []
    (notice,) = contract.notices
    assert notice.count("multipleOf") == 1 and "tally.count" in notice and "tally.again" in notice
    assert "format" in notice and "x-secret" in notice


def test_what_roost_cannot_send_is_listed_never_sent():
    contract = parse_skill(
        skill(
            {
                "beam": schema_entry("beam", {"to": {"type": "string"}}, ["to"], method="webhook"),
                "weigh": schema_entry("weigh", {"kg": {"type": "number"}}, ["kg"]),
                "trim": schema_entry(
                    "trim", {"kg": {"type": "number"}, "x": {"type": "string"}}, []
                ),
            }
        )
    )
    assert "webhook" in contract.actions["beam"].unsupported
    assert "type roost cannot edit" in contract.actions["weigh"].unsupported
    trim = contract.actions["trim"]
    assert trim.sendable and [f.name for f in trim.fields] == ["x"]
    assert any("trim" in n and "left out" in n for n in contract.notices)


def test_precedence_config_over_skill_json_over_built_in():
    contract = parse_skill(
        skill(
            {
                "poke": schema_entry(
                    "poke",
                    {
                        "target_agent": {"type": "string"},
                        "message": {"type": "string", "maxLength": 9},
                    },
                    ["target_agent"],
                ),
                "wave": schema_entry("wave", {"to": {"type": "string"}}, ["to"]),
            }
        )
    )
    catalog = build_catalog(contract, {"wave": {"title": "Wave hello"}})
    assert (
        catalog["poke"].source == "skill.json" and catalog["poke"].field("message").max_length == 9
    )
    assert catalog["heartbeat"] is CATALOG["heartbeat"]  # not in this contract: built-in
    assert (catalog["wave"].source, catalog["wave"].title) == ("config", "Wave hello")
    assert catalog["wave"].field("to").required  # the contract's fields, kept by the config
    # the contract's field keeps roost's hints: completion of the agent id
    assert catalog["poke"].field("target_agent").refers_to == "agent"


@pytest.mark.parametrize(
    "document",
    [
        [],
        {"actions": {}},
        {"actions": "poke"},
        {"actions": {"Bad Name": {}}},
        {"actions": {"poke": {"payload": 3}}},
        {"actions": {f"a{i}": {} for i in range(501)}},
    ],
)
def test_a_document_that_is_no_contract_is_refused(document):
    with pytest.raises(ContractError):
        parse_skill(document)


def test_hostile_names_texts_and_patterns_are_left_out_or_cleaned():
    fields = {
        "ok": {"type": "string", "description": "fine\x1b[31m red [b]x[/b]"},
        "bad name!": {"type": "string"},
        "huge": {"type": "string", "pattern": "a" * 600},
        "broken": {"type": "string", "pattern": "(unclosed"},
    }
    contract = parse_skill(
        skill(
            {
                "poke": schema_entry("poke", fields, [], label="\x1b]8;;x\x07evil"),
                "Bad Name": {},
            }
        )
    )
    spec = contract.actions["poke"]
    assert spec.label == "poke"  # a label with control characters is not used
    assert [f.name for f in spec.fields] == ["ok", "huge", "broken"]
    assert "\x1b" not in spec.field("ok").help
    assert spec.field("huge").pattern is None and spec.field("broken").pattern is None
    assert validate_payload(spec, {"huge": "b", "broken": "c"}) == []
    assert any("Bad Name" in n for n in contract.notices)


# --- the documents beside the state ----------------------------------------------------------


class Server:
    """Serves skill.json and state/manifest.json with ETags; counts what it was asked."""

    def __init__(self) -> None:
        self.skill = json.dumps(skill_document("https://d.test", "o", "r")).encode()
        self.manifest = json.dumps(
            {"repo_id": "R_1", "category_ids": {"general": "DIC_1"}}
        ).encode()
        self.statuses: list[tuple[str, int]] = []
        self.auth: list[str | None] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.auth.append(request.headers.get("authorization"))
        body = {"/skill.json": self.skill, "/state/manifest.json": self.manifest}.get(
            request.url.path
        )
        if body is None:
            answer = httpx.Response(404)
        else:
            etag = f'"{hash(body)}"'
            if request.headers.get("if-none-match") == etag:
                answer = httpx.Response(304, headers={"ETag": etag})
            else:
                answer = httpx.Response(200, content=body, headers={"ETag": etag})
        self.statuses.append((request.url.path, answer.status_code))
        return answer


async def test_documents_are_asked_conditionally_cached_and_the_last_good_copy_kept(tmp_path):
    server = Server()
    cache = DiskCache(tmp_path / "published")
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        docs = DeploymentDocs("https://d.test/", repo="o/r", client=client, cache=cache)
        assert await docs.refresh()
        assert docs.contract is not None and docs.manifest.value.repo_id == "R_1"
        assert not await docs.refresh()  # nothing changed: two 304s
        assert server.statuses[-2:] == [("/skill.json", 304), ("/state/manifest.json", 304)]
        good = docs.contract
        server.skill = b'{"actions": "not a table"}'
        assert not await docs.refresh()
        assert docs.contract is good and "was ignored" in docs.skill.problem
        assert any("skill.json" in n for n in docs.new_notices())
        assert docs.new_notices() == []  # each thing is told once
        server.skill = b"{not json"
        await docs.refresh()
        assert docs.contract is good
        # a new run starts from the disk cache's good copy, then asks conditionally
        again = DeploymentDocs("https://d.test", repo="o/r", client=client, cache=cache)
        again.load_cached()
        assert again.contract is not None and set(again.contract.actions) == set(good.actions)
    assert all(a is None for a in server.auth)  # no token on the read side


async def test_a_deployment_without_a_contract_keeps_the_built_in_catalog(tmp_path):
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(404))) as c:
        docs = DeploymentDocs("https://d.test", client=c)
        assert not await docs.refresh()
        assert docs.contract is None and docs.skill.missing and docs.skill.problem is None
        assert docs.catalog() == build_catalog(None)


def test_receipt_urls_follow_the_contracts_templates_on_the_read_origin_only():
    docs = DeploymentDocs("https://raw.example.test/o/r/main", repo="o/r")
    assert docs.receipt_urls(7)["applied"] == (
        "https://raw.example.test/o/r/main/state/inbox/processed/issue-7.json"
    )
    document = skill_document("https://raw.example.test/o/r/main", "o", "r")
    docs.skill.value = parse_skill(document)
    assert docs.receipt_urls(7)["rejected"].endswith("/state/inbox/rejected/issue-7.json")
    elsewhere = copy.deepcopy(document)
    elsewhere["onramp"]["receipts"]["applied"] = "https://evil.test/{owner}/{repo}/{issue_number}"
    docs.skill.value = parse_skill(elsewhere)
    assert docs.receipt_urls(7)["applied"].startswith("https://raw.example.test/o/r/main/")
    assert deployment_root("https://x.test/o/r/main/state/") == "https://x.test/o/r/main"
