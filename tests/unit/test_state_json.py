"""`roost state --json` prints, byte for byte, what it printed before it stopped copying the
state: the old encoder (``as_json`` of the document with ``snapshot_as_json``) against the new
one (``write_json`` of the document holding the models), on hostile documents."""

from __future__ import annotations

import copy
import io
import json
from datetime import UTC, datetime
from types import MappingProxyType

import msgspec
import pytest

from tests.hostile import hostile_documents
from tui.commands import json_text
from tui.commands.json_text import as_json, write_json
from tui.commands.state import json_document
from tui.config import Settings
from tui.network.models import parse_state
from tui.network.snapshot import snapshot_as_json
from tui.network.store import FileState, RefreshReport, Snapshot
from tui.sandbox.generator import generate_state

SETTINGS = Settings(read_url="https://example.test/deployment")


def _strange(docs: dict) -> dict:
    """``docs`` with every kind of value the encoders treat apart: unknown fields at every
    level (models and the plain values inside them), numbers JSON does not have, DEL, C1
    controls, bidi overrides, astral characters, big integers, empty containers."""
    docs = copy.deepcopy(docs)
    odd = '\x7f\x85caf\u00e9\u202e\U0001f600\x1b[2J"\\'
    agents = docs["agents.json"]
    agents["_meta"]["odd_" + odd] = {"nested": [odd, 1.5e300, -0.0, 10**18, {}, []]}
    agents["unknown_top"] = [odd, {"deep": {odd: odd}}]
    for index, agent in enumerate(agents["agents"].values()):
        agent["traits"] = {"calm": float("inf") if index % 2 else float("nan"), odd: 0.5}
        if index % 3 == 0:
            agent["new_field_" + odd] = {"x": [odd, None, True, 2.5]}
    docs["stats.json"]["brand_new_counter"] = 12
    docs["stats.json"]["a_float"] = float("-inf")
    for post in docs["trending.json"]["trending"]:
        post["score"] = float("nan")
        post["extra"] = odd
    return docs


def _snapshot(docs: dict) -> Snapshot:
    """The models of ``docs`` as the store makes them from the bytes a service sends (ASCII
    escapes: a lone surrogate can only come that way; NaN and Infinity as Python writes them)."""
    files = {
        name: FileState(
            name, model=parse_state(name, json.dumps(doc).encode()), integrity="verified"
        )
        for name, doc in docs.items()
    }
    return Snapshot(MappingProxyType(files), generation=1)


def _old(snapshot, reports, code: int) -> bytes:
    document = {
        "service": SETTINGS.display_url,
        "snapshot": snapshot_as_json(snapshot),
        "reports": [report.as_dict() for report in reports],
        "files": {
            name: {"integrity": state.integrity, "loaded": state.loaded}
            for name, state in snapshot.files.items()
        },
        "integrity": snapshot.integrity_summary(),
        "exit_code": code,
    }
    return (as_json(document) + "\n").encode("ascii")


def _new(snapshot, reports, code: int, *, binary: bool = True) -> bytes:
    document = json_document(SETTINGS, False, snapshot, reports, code)
    document["files"] = {
        name: {"integrity": state.integrity, "loaded": state.loaded}
        for name, state in snapshot.files.items()
    }
    if binary:
        raw = io.BytesIO()
        out = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
        write_json(document, out)
        out.flush()
        return raw.getvalue()
    text = io.StringIO()  # a stream with no bytes underneath
    write_json(document, text)
    return text.getvalue().encode("ascii")


@pytest.fixture
def reports():
    report = RefreshReport(cycle=1, started_at=datetime(2027, 1, 1, tzinfo=UTC))
    report.notes.append("caf\u00e9 \x7f \U0001f600")
    return [report]


@pytest.mark.parametrize("slice_bytes", [1 << 20, 7])  # 7: a slice ends inside a document
def test_the_new_encoder_prints_what_the_old_one_did_on_a_hostile_document(
    monkeypatch, reports, slice_bytes
):
    monkeypatch.setattr(json_text, "SLICE", slice_bytes)
    snapshot = _snapshot(_strange(hostile_documents()))
    old = _old(snapshot, reports, 1)
    assert _new(snapshot, reports, 1) == old
    assert _new(snapshot, reports, 1, binary=False) == old
    text = old.decode("ascii")
    assert text.endswith("\n") and text.count("\n") == 1
    document = json.loads(text, parse_constant=lambda name: pytest.fail(f"bare {name}"))
    agents = document["snapshot"]["agents"]
    assert "unknown_top" in agents and any(k.startswith("odd_") for k in agents["_meta"])


def test_a_lone_surrogate_takes_the_old_json_dumps_path_whole(reports):
    docs = _strange(hostile_documents())
    docs["agents.json"]["agents"]["lone"] = {"name": "half \ud800 a pair", "extra": 1e16}
    snapshot = _snapshot(docs)
    old = _old(snapshot, reports, 0)
    assert "\\ud800" in old.decode("ascii") and "1e+16" in old.decode("ascii")  # json.dumps's
    assert _new(snapshot, reports, 0) == old


def test_the_demo_network_at_size_prints_the_same(reports):
    snapshot = _snapshot(_strange(generate_state(seed=7, agents=3000)))
    assert _new(snapshot, reports, 0) == _old(snapshot, reports, 0)


def test_files_that_are_not_loaded_are_null(reports):
    docs = hostile_documents()
    snapshot = _snapshot({name: docs[name] for name in ("agents.json", "stats.json")})
    new = _new(snapshot, reports, 3)
    assert new == _old(snapshot, reports, 3)
    assert json.loads(new)["snapshot"]["seeds"] is None


def test_printing_never_copies_a_whole_state_file_as_plain_values(monkeypatch, capsys, server):
    """The copy that made `roost state --json` need more memory than fetching, parsing and
    dumping the same files: ``to_builtins`` of a whole model (50,000 agents as dicts beside
    their structs). Now only a model that holds unknown fields is copied, one at a time."""
    from tests.functional.test_cli_hostile import serve_files
    from tui.cli import main

    docs = _strange(generate_state(seed=7, agents=60))
    serve_files(server, {name: json.dumps(doc).encode() for name, doc in docs.items()})
    copied: list[str] = []
    to_builtins = msgspec.to_builtins

    def recording(value, *args, **kwargs):
        copied.append(type(value).__name__)
        return to_builtins(value, *args, **kwargs)

    monkeypatch.setattr(msgspec, "to_builtins", recording)
    assert main(["state", "--json", "--read-url", server.url, "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["snapshot"]["agents"]["agents"]  # printed
    whole = {"AgentsFile", "ChannelsFile", "TrendingFile", "SeedsFile"}  # (stats: ~300 bytes)
    assert "Agent" in copied and not whole & set(copied)
