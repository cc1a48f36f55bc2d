"""`roost boots` and `roost egg verify|ls|cat`: output, JSON shape, exit codes 0/1/2/3, lying
hubs over a real loopback socket, and hostile text kept inert."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest

from tests.conftest import REAL_BOOTS_DIR
from tui.cli import main
from tui.commands.eggs import _no_record_for, _Stop, _write_entry
from tui.eggs.boot_record import record_bytes
from tui.eggs.egg_report import CHECKS
from tui.eggs.hub_paths import index_url
from tui.sandbox.hub import hub_state
from tui.sandbox.hub_records import build_hub
from tui.sandbox.server import running_sandbox

SLUG = "night-shift-newsroom"
DEMO_HUB = "http://demo.roost.invalid/hub"
CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens on loopback
#: A demo record read from a file is held to its own hub (https) unless the hub is given
DEMO = ("--hub-url", DEMO_HUB)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def verify_json(capsys, egg: Path, record: Path) -> tuple[int, str, str]:
    """`roost egg verify EGG --record RECORD --json`, the demo record held to the demo hub."""
    return run(capsys, "egg", "verify", str(egg), "--record", str(record), "--json", *DEMO)


@pytest.fixture
def demo_egg(tmp_path) -> tuple[Path, Path, bytes]:
    """The demo egg of SLUG and its record, as local files."""
    record = build_hub(DEMO_HUB).record(SLUG)
    egg = build_hub(DEMO_HUB).eggs[record.value["egg"]["path"]]
    egg_path = tmp_path / "demo.egg"
    egg_path.write_bytes(egg)
    record_path = tmp_path / "record.json"
    record_path.write_bytes(record.raw)
    return egg_path, record_path, egg


def test_boots_lists_the_demo_hub_and_its_store(capsys):
    code, out, _ = run(capsys, "boots")
    assert code == 0
    assert "11 of 11 records good" in out and SLUG in out
    assert "store rapplications from http://demo.roost.invalid/hub/store/" in out
    assert "4 of 4 rapplications good" in out
    line = next(line for line in out.splitlines() if "quiet_hours" in line)
    assert "the store ships no egg" in line
    code, out, _ = run(capsys, "boots", "--json")
    hub, store = json.loads(out)["sources"]
    assert code == 0 and hub["kind"] == "index" and len(hub["entries"]) == 11
    assert hub["hub"] == DEMO_HUB  # the demo's own publications, held to the demo hub
    assert hub["entries"][0]["record"]["schema"] == "hive-hub-organization-seed-boot/1"
    assert store["kind"] == "store" and [a["id"] for a in store["apps"]][:2] == [
        "field_notes",
        "tide_tables",
    ]
    assert store["apps"][0]["egg"] == "not downloaded"


def test_verify_by_slug_downloads_and_passes(capsys):
    code, out, _ = run(capsys, "egg", "verify", "--slug", SLUG)
    assert code == 0 and "verified:" in out
    code, out, _ = run(capsys, "boots")
    line = next(line for line in out.splitlines() if SLUG in line)
    assert "verified" in line and out.count("not downloaded") == 10 + 3  # and 3 store eggs
    code, out, _ = run(capsys, "egg", "verify", "--slug", SLUG, "--json")
    document = json.loads(out)
    assert code == 0 and document["ok"] is True
    assert [c["id"] for c in document["checks"]] == [check_id for check_id, _ in CHECKS]
    assert all(set(c) == {"id", "name", "status", "detail"} for c in document["checks"])
    assert {c["status"] for c in document["checks"]} <= {"pass", "skip"}


def test_verify_a_local_egg_with_and_without_its_record(capsys, demo_egg):
    egg_path, record_path, egg = demo_egg
    assert run(capsys, "egg", "verify", str(egg_path))[0] == 0
    code, out, _ = run(capsys, "egg", "verify", str(egg_path), "--record", str(record_path), *DEMO)
    assert code == 0
    tampered = bytearray(egg)
    tampered[len(egg) // 2] ^= 0x20
    egg_path.write_bytes(bytes(tampered))
    code, out, _ = run(capsys, "egg", "verify", str(egg_path), "--record", str(record_path), *DEMO)
    assert code == 1 and "FAILED at check" in out
    code, out, _ = run(capsys, "egg", "verify", str(egg_path), "--json")
    assert code == 1 and json.loads(out)["ok"] is False


@pytest.mark.parametrize(
    "argv",
    [
        ("egg", "verify"),
        ("egg", "ls", "--json"),
        ("egg", "verify", "--slug", SLUG, "--record", "r.json"),
        ("egg",),
    ],
)
def test_usage_errors_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as caught:
        main(list(argv))
    assert caught.value.code == 2


def test_unknown_slug_and_a_missing_record_file_exit_2(capsys, tmp_path):
    code, _, err = run(capsys, "egg", "verify", "--slug", "no-such-seed")
    assert code == 2 and SLUG in err
    code, _, err = run(capsys, "egg", "verify", "x.egg", "--record", str(tmp_path / "none.json"))
    assert code == 2 and "no such file" in err


@pytest.mark.parametrize(
    "text",
    ['{"kind": "something else"}', "not json at all", "[1]"],
    ids=["wrong-kind", "not-json", "array-of-junk"],
)
def test_a_record_that_is_not_a_boot_record_fails_its_check(capsys, demo_egg, tmp_path, text):
    """Hostile input like the egg: a report (JSON too) whose record.document check fails, the
    other record checks not run, exit 1 — not a usage error."""
    egg_path, _, _ = demo_egg
    (tmp_path / "r.json").write_text(text)
    code, out, _ = verify_json(capsys, egg_path, tmp_path / "r.json")
    document = json.loads(out)
    assert code == 1 and document["ok"] is False
    checks = {c["id"]: c for c in document["checks"]}
    assert [c["id"] for c in document["checks"] if c["status"] == "fail"] == ["record.document"]
    assert checks["integrity"]["status"] == "pass"
    assert checks["record.address"]["status"] == "skip"
    assert "not a boot record" in checks["record.address"]["detail"]
    code, out, _ = run(capsys, "egg", "verify", str(egg_path), "--record", str(tmp_path / "r.json"))
    assert code == 1 and "FAILED at check" in out and "(record.document)" in out


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"slug": "Bad_Slug"}, "does not match"),
        ({"egg.rappid": "rappid:@other/night-shift-newsroom-boot:" + "a" * 64}, "hive-hub"),
        ({"brainstem.hatcher": {"path": "hub/boot/hatch_seed.py", "sha256": "ab" * 32}},
         "published hatcher"),
    ],
    ids=["slug", "rappid-owner", "hatcher"],
)  # fmt: skip
def test_the_records_own_rules_fail_record_document(capsys, demo_egg, tmp_path, change, words):
    egg_path, record_path, _ = demo_egg
    value = json.loads(record_path.read_bytes())
    for dotted, new in change.items():
        *parents, key = dotted.split(".")
        node = value
        for parent in parents:
            node = node[parent]
        node[key] = new
    (tmp_path / "r.json").write_bytes(record_bytes(value))
    code, out, _ = verify_json(capsys, egg_path, tmp_path / "r.json")
    checks = {c["id"]: c for c in json.loads(out)["checks"]}
    assert code == 1 and checks["record.document"]["status"] == "fail"
    assert words in checks["record.document"]["detail"]


def test_members_no_published_record_has_are_shown_not_failed(capsys, demo_egg, tmp_path):
    egg_path, record_path, _ = demo_egg
    value = json.loads(record_path.read_bytes())
    value["egg"]["mirror"] = "https://elsewhere.invalid/x.egg"
    (tmp_path / "r.json").write_bytes(record_bytes(value))
    code, out, _ = verify_json(capsys, egg_path, tmp_path / "r.json")
    checks = {c["id"]: c for c in json.loads(out)["checks"]}
    assert code == 0 and checks["record.document"]["status"] == "pass"
    assert "egg.mirror" in checks["record.document"]["detail"]


def test_unreachable_exits_3(capsys, tmp_path):
    code, out, _ = run(capsys, "boots", "--read-url", CLOSED, "--boots", index_url(CLOSED))
    assert (
        code == 3 and "offline: the hub could not be reached (" in out and "ConnectError" not in out
    )
    code, _, err = run(
        capsys, "egg", "verify", "--slug", SLUG, "--read-url", CLOSED, "--boots", CLOSED + "/i"
    )
    assert code == 3
    code, _, err = run(capsys, "egg", "verify", str(tmp_path / "missing.egg"))
    assert code == 2 and "no such file" in err
    code, _, err = run(capsys, "egg", "verify", str(tmp_path))
    assert code == 2 and "is a folder" in err


def _hub_args(info) -> list[str]:
    return ["--read-url", info.read_url, "--hub-url", info.hub_url, "--boots",
            index_url(info.hub_url)]  # fmt: skip


@pytest.mark.parametrize(
    ("knob", "check"),
    [("tampered", "file.sha256"), ("truncated", "file.size"), ("foreign_url", "record.url")],
)
def test_a_lying_hub_fails_the_right_check_and_writes_nothing(capsys, knob, check, tmp_path):
    with running_sandbox(agents=20) as (info, app):
        getattr(hub_state(app).faults, knob).add(SLUG)
        code, out, _ = run(
            capsys, "egg", "verify", "--slug", SLUG, "--json", *_hub_args(info),
            "--cache-dir", str(tmp_path / "cache"),
        )  # fmt: skip
    document = json.loads(out)
    failed = [c["id"] for c in document["checks"] if c["status"] == "fail"]
    assert code == 1 and failed == [check]
    eggs = list((tmp_path / "cache").rglob("*.egg"))
    assert eggs == []


def test_ls_and_cat_show_a_verified_egg(capsysbinary, demo_egg):
    egg_path, record_path, egg = demo_egg
    code = main(["egg", "ls", str(egg_path), "--record", str(record_path), *DEMO])
    out = capsysbinary.readouterr().out.decode()
    assert code == 0
    assert "soul.md" in out and "manifest.json" in out and "hash ok" in out
    assert main(["egg", "cat", "soul.md", str(egg_path)]) == 0
    soul = capsysbinary.readouterr().out
    assert soul.startswith(b"# The Night Shift Newsroom\n") and soul in egg


def test_ls_and_cat_refuse_an_egg_that_does_not_verify(capsys, demo_egg):
    egg_path, _, egg = demo_egg
    egg_path.write_bytes(egg + b"trailing")
    code, out, err = run(capsys, "egg", "cat", "soul.md", str(egg_path))
    assert code == 1 and out == "" and "did not verify" in err
    assert run(capsys, "egg", "ls", str(egg_path))[0] == 1


def test_cat_of_a_missing_entry_exits_2(capsys, demo_egg):
    egg_path, _, _ = demo_egg
    code, _, err = run(capsys, "egg", "cat", "nope.txt", str(egg_path))
    assert code == 2 and "soul.md" in err


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_cat_on_a_terminal_shows_text_inert_and_refuses_binary():
    screen = FakeTerminal()
    assert _write_entry(b"title\x1b[2J\x1b]0;pwned\x07 [bold]x", "a.md", screen) == 0
    assert "\x1b" not in screen.getvalue() and "\x07" not in screen.getvalue()
    with pytest.raises(_Stop) as caught:
        _write_entry(b"\x00\x01\x02binary", "b.bin", FakeTerminal())
    assert caught.value.code == 2 and "pipe" in caught.value.message


@pytest.mark.parametrize(
    "data",
    [b"\x01" * 4096, b"ok\n" + b"\x1b\x02\x03" * 100, "\u00e9t\u00e9".encode("latin-1")],
    ids=["all-controls", "mostly-controls", "not-utf8"],
)
def test_cat_on_a_terminal_refuses_a_file_of_control_bytes_as_binary(data):
    """A file of 0x01 bytes decodes as UTF-8, but shown as text it is a wall of symbols."""
    screen = FakeTerminal()
    with pytest.raises(_Stop) as caught:
        _write_entry(data, "x.bin", screen)
    assert "is binary" in caught.value.message and screen.getvalue() == ""


def test_cat_on_a_terminal_shows_text_with_a_few_controls():
    screen = FakeTerminal()
    text = ("line with a tab\t and \x1b[1mbold\x1b[0m\r\n" * 20).encode()
    assert _write_entry(text, "a.txt", screen) == 0
    assert "line with a tab" in screen.getvalue() and "\x1b" not in screen.getvalue()


def test_hostile_record_text_is_printed_inert(capsys, tmp_path):
    value = build_hub(DEMO_HUB).record(SLUG).value
    value = {**value, "name": "Evil \x1b[2J\x1b]0;pwned\x07 \x9b31m [@click=app.quit]"}
    path = tmp_path / "evil.json"
    path.write_bytes(record_bytes(value))
    code, out, _ = run(capsys, "boots", "--boots", str(path), *DEMO)
    assert code == 0
    assert "Evil" in out and "\x1b" not in out and "\x9b" not in out and "\x07" not in out
    code, out, _ = run(capsys, "boots", "--boots", str(path), "--json", *DEMO)
    (document,) = json.loads(out)["sources"]
    assert "\x1b" not in out and document["entries"][0]["record"]["name"] == value["name"]


def test_the_real_records_against_the_public_hub(capsys):
    if not REAL_BOOTS_DIR.is_dir():
        pytest.skip("../shared/real/boot-records is not present beside this clone")
    code, out, _ = run(capsys, "boots", "--read-url", CLOSED, "--boots", str(REAL_BOOTS_DIR))
    assert code == 0 and "12 of 12 records good" in out
    record = sorted(REAL_BOOTS_DIR.glob("*.json"))[0]
    assert hashlib.sha256(record.read_bytes()).hexdigest() == record.stem


def test_verify_by_url_alone_or_with_its_record(capsys, demo_egg):
    _, record_path, egg = demo_egg
    url = build_hub(DEMO_HUB).record(SLUG).value["egg"]["url"]
    code, out, _ = run(capsys, "egg", "verify", url, "--json")
    document = json.loads(out)
    assert code == 0 and document["ok"] is True
    assert {c["status"] for c in document["checks"] if c["id"].startswith("record.")} == {"skip"}
    code, out, _ = run(capsys, "egg", "verify", url, "--record", str(record_path), "--json", *DEMO)
    document = json.loads(out)
    assert code == 0 and document["ok"] is True
    assert {c["status"] for c in document["checks"] if c["id"] == "record.address"} == {"pass"}
    code, _, err = run(capsys, "egg", "verify", url + "x", "--record", str(record_path), *DEMO)
    assert code == 2 and "is not the record's egg.url" in err


async def test_inspect_opens_the_inspector_on_the_verified_egg(demo_egg):
    """`roost egg inspect` runs InspectorApp on what `_obtain` verified; escape leaves it."""
    from tui.eggs.boot_record import parse_boot_record
    from tui.eggs.verify import verify_egg
    from tui.ui.screens.boots.inspector import EggInspectorScreen
    from tui.ui.screens.boots.inspector_app import InspectorApp

    egg_path, record_path, _ = demo_egg
    record = parse_boot_record(record_path.read_bytes())
    report = verify_egg(egg_path, record, hub_url=DEMO_HUB)
    app = InspectorApp(egg_path, record, report=report)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, EggInspectorScreen)
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code == 0


def test_inspect_opens_on_the_report_of_an_egg_the_hub_lied_about(capsys, tmp_path, monkeypatch):
    """A refused download has no bytes to show, but its report is what the person needs: the
    inspector opens on it (exit 1 after), with nothing of the egg kept or shown."""
    from tui.commands import eggs
    from tui.ui.screens.boots.inspector_app import InspectorApp

    shown: list[InspectorApp] = []

    async def run_async(self: InspectorApp) -> None:
        shown.append(self)

    monkeypatch.setattr(eggs, "_a_terminal", lambda: True)
    monkeypatch.setattr(InspectorApp, "run_async", run_async)
    with running_sandbox(agents=20) as (info, app):
        hub_state(app).faults.tampered.add(SLUG)
        code, _, _ = run(
            capsys, "egg", "inspect", "--slug", SLUG, *_hub_args(info),
            "--cache-dir", str(tmp_path / "cache"),
        )  # fmt: skip
    assert code == 1 and len(shown) == 1
    inspector = shown[0].inspector
    assert inspector.source is None and inspector.report is not None
    assert inspector.report.failed() == ["file.sha256"]
    assert list((tmp_path / "cache").rglob("*.egg")) == []


def test_inspect_needs_a_terminal(capsys, demo_egg):
    egg_path, _, _ = demo_egg
    code, _, err = run(capsys, "egg", "inspect", str(egg_path))
    assert code == 2 and "needs a terminal" in err


def test_inspect_needs_a_target(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["egg", "inspect"])
    assert stop.value.code == 2


def test_a_hub_url_given_beside_the_demo_network_is_the_one_used(capsys, tmp_path):
    """No read URL (the demo network) but --hub-url: records promising eggs at that hub verify
    against it, and the hub and its index are asked over the network, not the demo's in-process
    hub (the lying knob is set on the socket's hub only)."""
    hub = "http://hub.invalid"
    record = build_hub(hub).record(SLUG)
    (tmp_path / "demo.egg").write_bytes(build_hub(hub).eggs[record.value["egg"]["path"]])
    (tmp_path / "record.json").write_bytes(record.raw)
    code, out, _ = run(
        capsys, "egg", "verify", str(tmp_path / "demo.egg"),
        "--record", str(tmp_path / "record.json"), "--hub-url", hub,
    )  # fmt: skip
    assert code == 0 and "verified:" in out
    with running_sandbox(agents=20) as (info, app):
        hub_state(app).faults.tampered.add(SLUG)
        code, out, _ = run(
            capsys, "egg", "verify", "--slug", SLUG, "--json", "--hub-url", info.hub_url,
            "--cache-dir", str(tmp_path / "cache"),
        )  # fmt: skip
    failed = [c["id"] for c in json.loads(out)["checks"] if c["status"] == "fail"]
    assert code == 1 and failed == ["file.sha256"]


def test_a_slug_whose_own_record_fails_names_that_failure():
    """An index entry names its slug even when its record document cannot be used: the answer
    is that document's problem (exit 1; 3 when the source was unreachable), not "no such slug"
    (a usage error, which stays for slugs nobody names)."""
    from tui.eggs.sources import BootEntry, BootSet

    problem = "http://hub.invalid/x.json: document sha256 ab… is not the reference's cd…; not used"
    boots = [BootSet("http://hub.invalid/i.json", entries=(BootEntry(f"seeds[0] {SLUG}",
                     problems=(problem,)),))]  # fmt: skip
    with pytest.raises(_Stop) as caught:
        _no_record_for(SLUG, boots)
    assert caught.value.code == 1 and "not the reference's" in caught.value.message
    with pytest.raises(_Stop) as caught:
        _no_record_for("someone-else", boots)
    assert caught.value.code == 2 and "1 record of the source cannot be used" in (
        caught.value.message
    )


def test_verify_by_slug_says_when_the_record_is_the_cached_copy(capsys, demo_egg, tmp_path):
    _, record_path, _ = demo_egg
    folder = tmp_path / "boots"
    folder.mkdir()
    (folder / "record.json").write_bytes(record_path.read_bytes())
    args = ("egg", "verify", "--slug", SLUG, "--boots", str(folder),
            "--cache-dir", str(tmp_path / "cache"), *DEMO)  # fmt: skip
    code, _, err = run(capsys, *args)
    assert code == 0 and "cached" not in err
    (folder / "record.json").write_bytes(b"{broken")
    code, out, err = run(capsys, *args)
    assert code == 0 and "verified:" in out
    assert "last good copy from the cache" in err


def test_an_unwritable_egg_cache_is_a_clear_exit_3(capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("where the cache folder would be")
    code, _, err = run(capsys, "egg", "verify", "--slug", SLUG, "--cache-dir", str(blocker))
    assert code == 3 and "cannot be written" in err and "Traceback" not in err


# ---------------------------------------------------------------------- legacy eggs, stores


@pytest.fixture
def legacy_path(tmp_path) -> Path:
    from tests.legacy_eggs import legacy_egg

    path = tmp_path / "field_notes.egg"
    path.write_bytes(legacy_egg())
    return path


def test_a_legacy_egg_exits_5_and_says_what_it_is(capsys, legacy_path):
    code, out, _ = run(capsys, "egg", "verify", str(legacy_path))
    lines = out.splitlines()
    assert code == 5
    phrase = "legacy egg (brainstem-egg/2.2-rapplication): read safely, cannot be verified"
    assert lines[0].startswith("✓  1. legacy.container")
    assert lines[-1].startswith(phrase + "; the ")
    assert out.count(phrase) == 1  # the verdict says it once: never doubled
    assert "legacy (" not in out and "legacy egg, legacy" not in out
    assert "Cannot be verified: it has no per-file hashes" in out and "Checked instead: " in out
    assert not any(line.startswith("verified") for line in lines)
    code, out, _ = run(capsys, "egg", "verify", str(legacy_path), "--json")
    document = json.loads(out)
    assert code == 5 and document["format"] == "legacy (brainstem-egg/2.2-rapplication)"
    assert document["ok"] is True and document["verified"] is False
    from tests.legacy_eggs import patch

    legacy_path.write_bytes(patch(legacy_path.read_bytes(), "rappid.json", crc=0xBAD))
    code, out, _ = run(capsys, "egg", "verify", str(legacy_path))
    assert code == 1 and out.splitlines()[-1].startswith("FAILED at check 7 (legacy.crc): ")


def test_ls_json_and_cat_of_a_legacy_egg_read_its_inflated_files(capsysbinary, legacy_path):
    from tests.legacy_eggs import AGENT

    assert main(["egg", "ls", str(legacy_path), "--json"]) == 0
    captured = capsysbinary.readouterr()
    document = json.loads(captured.out)
    assert document["format"].startswith("legacy") and document["verified"] is False
    assert [e["name"] for e in document["entries"]][1] == "agents/field_notes_agent.py"
    assert document["entries"][1]["size"] == len(AGENT)
    assert (
        b"legacy egg (brainstem-egg/2.2-rapplication): read safely, cannot be verified"
        in captured.err
    )
    assert main(["egg", "cat", str(legacy_path), "agents/field_notes_agent.py"]) == 0
    assert capsysbinary.readouterr().out == AGENT


def test_cat_takes_the_egg_first_and_the_old_order_when_unambiguous(capsysbinary, demo_egg):
    egg_path, _, egg = demo_egg
    assert main(["egg", "cat", str(egg_path), "soul.md"]) == 0
    soul = capsysbinary.readouterr().out
    assert soul.startswith(b"# The Night Shift Newsroom\n") and soul in egg
    assert main(["egg", "cat", "soul.md", str(egg_path)]) == 0  # the old order still works
    assert capsysbinary.readouterr().out == soul
    assert main(["egg", "ls", str(egg_path), "--json"]) == 0
    document = json.loads(capsysbinary.readouterr().out)
    assert document["format"] == "rapp/1" and document["verified"] is True
    soul_entry = next(e for e in document["entries"] if e["name"] == "soul.md")
    assert soul_entry["hash_ok"] is True and len(soul_entry["egg_hash"]) == 64
    with pytest.raises(SystemExit):
        main(["egg", "cat", str(egg_path)])  # no PATH-IN-EGG


def test_a_store_record_given_with_the_egg_adds_its_promises(capsys, legacy_path, tmp_path):
    from tests.legacy_eggs import store_app

    app = store_app(legacy_path.read_bytes())
    record = {"schema": "rapp-pokedex-rapp/1.0", "id": app.id, "name": app.name,
              "rappid": app.rappid, "egg_bytes": app.egg_bytes,
              "singleton_sha256": app.singleton_sha256, "singleton_bytes": app.singleton_bytes}  # fmt: skip
    (tmp_path / "rec.json").write_text(json.dumps(record))
    code, out, _ = run(capsys, "egg", "verify", str(legacy_path), "--record", str(tmp_path / "rec.json"), "--json")  # fmt: skip
    checks = {c["id"]: c["status"] for c in json.loads(out)["checks"]}
    assert code == 5 and checks["store.size"] == checks["store.agent"] == "pass"
    record["egg_bytes"] += 1
    (tmp_path / "rec.json").write_text(json.dumps(record))
    code, out, _ = run(capsys, "egg", "verify", str(legacy_path), "--record", str(tmp_path / "rec.json"))  # fmt: skip
    assert code == 1 and out.splitlines()[-1].startswith("FAILED at check 12 (store.size): file is")


def test_the_report_wraps_on_a_terminal_and_is_whole_in_a_pipe(capsys, demo_egg, monkeypatch):
    from tui.commands import eggs

    egg_path, record_path, _ = demo_egg
    other = "https://a-much-longer-hub-name.example/with/a/deep/path/for/its/eggs"
    code, out, _ = run(capsys, "egg", "verify", str(egg_path), "--record", str(record_path), "--hub-url", other)  # fmt: skip
    assert code == 1 and "…" not in out
    last = out.splitlines()[-1]
    expected = f"{other}/{build_hub(DEMO_HUB).record(SLUG).value['egg']['path']}"
    assert last.startswith("FAILED at check 33 (record.url): egg.url ") and last.endswith(
        f"is not '{expected}'"
    )
    assert all(line.strip() for line in out.splitlines())  # no empty detail lines
    monkeypatch.setattr(eggs, "_width", lambda out: 60)
    code, wrapped, _ = run(capsys, "egg", "verify", str(egg_path), "--record", str(record_path), "--hub-url", other)  # fmt: skip
    assert max(len(line) for line in wrapped.splitlines()) <= 60
    assert "".join(wrapped.split()) == "".join(out.split())  # the same words, none cut


def test_a_real_record_needs_no_flags_to_hold_its_own_url(capsys, demo_egg):
    """With no hub configured (the demo network), a real record is held to its own hub, never
    the demo's: record.url passes and names https://kody-w.github.io/rapp-hive-hub."""
    if not REAL_BOOTS_DIR.is_dir():
        pytest.skip("../shared/real/boot-records is not present beside this clone")
    egg_path, _, _ = demo_egg  # not this record's egg: the record's own checks are what counts
    record = sorted(REAL_BOOTS_DIR.glob("*.json"))[0]
    code, out, _ = run(capsys, "egg", "verify", str(egg_path), "--record", str(record), "--json")
    checks = {c["id"]: c for c in json.loads(out)["checks"]}
    assert code == 1
    for check in ("record.document", "record.ref", "record.path", "record.url"):
        assert checks[check]["status"] == "pass", checks[check]
    assert "https://kody-w.github.io/rapp-hive-hub" in checks["record.url"]["detail"]
    assert "demo.roost.invalid" not in out


def test_the_real_seed_boot_egg_verifies_with_its_record_and_no_flags(capsys):
    """The real seed-boot eggs are not kept in ../shared/real (only their records): this runs
    when one of them is there beside its record, named by its sha256, and skips otherwise."""
    if not REAL_BOOTS_DIR.is_dir():
        pytest.skip("../shared/real/boot-records is not present beside this clone")
    records = {
        json.loads(p.read_bytes())["egg"]["sha256"]: p for p in REAL_BOOTS_DIR.glob("*.json")
    }
    eggs = [p for p in REAL_BOOTS_DIR.parent.rglob("*.egg") if p.stem in records]
    if not eggs:
        pytest.skip("no real seed-boot egg beside its record in ../shared/real")
    egg = eggs[0]
    code, out, _ = run(capsys, "egg", "verify", str(egg), "--record", str(records[egg.stem]))
    assert code == 0 and out.splitlines()[-1].startswith("verified: ")


def test_boots_lists_the_real_store_with_what_its_mirror_holds(capsys, monkeypatch):
    """Read from its path, the store's eggs and records come from the mirror beside it; what
    the mirror lacks would be asked of the store's origin only (here a transport that answers
    404 and notes what was asked: no test uses the network)."""
    import httpx

    from tui.service import Service

    store = REAL_BOOTS_DIR.parent / "rapp-store"
    if not store.is_dir():
        pytest.skip("../shared/real/rapp-store is not present beside this clone")
    asked: list[str] = []

    def offline(self) -> httpx.AsyncClient:
        def reply(request: httpx.Request) -> httpx.Response:
            asked.append(str(request.url))
            return httpx.Response(404)

        self._hub_client = self._hub_client or httpx.AsyncClient(
            transport=httpx.MockTransport(reply)
        )
        return self._hub_client

    monkeypatch.setattr(Service, "hub_client", offline)
    code, out, _ = run(capsys, "boots", "--boots", str(store / "api" / "v1" / "index.json"), "--read-url", CLOSED)  # fmt: skip
    zoo = next(line for line in out.splitlines() if "rapp-zoo" in line)
    assert "18,795 B" in zoo and "legacy" in zoo and "@rapp 0.3.0 platform" in zoo
    assert code == 1  # the six rapplications the mirror lacks: their records are not at hand
    code, out, _ = run(capsys, "egg", "ls", "--slug", "thoughtbox", "--boots", str(store / "api" / "v1" / "index.json"), "--read-url", CLOSED)  # fmt: skip
    assert code == 0 and "agents/thoughtbox_agent.py" in out and "crc ok" in out
    assert asked and all(u.startswith("https://raw.githubusercontent.com/") for u in asked)
    assert not any(u.endswith(".egg") for u in asked)  # the mirror held every egg asked for


def test_a_record_file_holding_several_records_is_a_usage_error_that_says_what_to_do(
    capsys, demo_egg, tmp_path
):
    """What the README says: --record takes one record; several are a usage error naming the
    way to pick one, while a document that is no record fails the first record check."""
    egg_path, record_path, _ = demo_egg
    hub = build_hub(DEMO_HUB)
    several = tmp_path / "records.json"
    chosen = [hub.record(SLUG), *(r for r in hub.records if r.slug != SLUG)][:3]
    several.write_text("[" + ",".join(r.raw.decode() for r in chosen) + "]")
    code, out, err = run(capsys, "egg", "verify", str(egg_path), "--record", str(several), *DEMO)
    assert code == 2 and out == ""
    assert f"--record {several} holds 3 records; --record takes one" in err
    assert f"--boots {several} --slug SLUG" in err
    code, out, err = run(
        capsys, "egg", "verify", str(egg_path), "--boots", str(several), "--slug", SLUG, *DEMO
    )
    assert code == 0, err
    nothing = tmp_path / "not-a-record.json"
    nothing.write_text('{"hello": "world"}')
    code, out, _ = verify_json(capsys, egg_path, nothing)
    first_record_check = next(c for c in json.loads(out)["checks"] if c["id"].startswith("record"))
    assert code == 1 and first_record_check["status"] == "fail"
