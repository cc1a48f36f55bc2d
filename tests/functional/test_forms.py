"""The action picker and the generic action form, driven by keys in a small host app.

The host (tests/forms_rig.py) binds ``n`` the way the app will and records submitted drafts; the
snapshot comes from the sandbox generator. Each submitted draft must compose to exactly the
request the catalog composes for the same payload, and pass the catalog's validation.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from app_rig import svg_text
from forms_rig import FormsHost, demo_snapshot, open_form, settle
from hostile import LITERALS, hostile_documents
from textual.notifications import Notify
from textual.widgets import Checkbox, Input, Select, TextArea

from tui.actions.catalog import CATALOG, ActionSpec, FieldSpec, validate_payload
from tui.actions.drafts import FileDrafts
from tui.actions.issue_body import compose_issue
from tui.ui.screens.forms import ActionContext, Draft, MemoryDrafts
from tui.ui.screens.forms.confirm import DiscardConfirm
from tui.ui.screens.forms.fields import ReferenceRow
from tui.ui.screens.forms.form import FORM_KEYS, ActionForm
from tui.ui.screens.forms.picker import ActionPicker
from tui.ui.screens.forms.preview import IssuePreview

SNAPSHOT = demo_snapshot()
AGENT = next(iter(SNAPSHOT.agents.agents))
CHANNEL = sorted(SNAPSHOT.channels.channels)[0]
PROPOSAL = SNAPSHOT.seeds.proposals[0].id

FAMILIES = ActionSpec(
    "tune_agent",
    description="A test action with a field of every family.",
    fields=(
        FieldSpec("mood", "str", required=True, choices=("calm", "loud")),
        FieldSpec("quiet", "bool"),
        FieldSpec("tags", "list[str]", pattern=r"^[a-z]+$", max_items=3),
        FieldSpec("level", "int", min_value=1, max_value=9),
    ),
)


def host(context: ActionContext | None = None, **kwargs) -> FormsHost:
    return FormsHost(kwargs.pop("snapshot", SNAPSHOT), context, **kwargs)


def notices(messages: list) -> list[str]:
    """The text of the notifications among the messages a ``message_hook`` saw."""
    return [str(m.notification.message) for m in messages if isinstance(m, Notify)]


def problems_of(form: ActionForm, name: str) -> str:
    box = form.row(name).query_one(".field-problems")
    return str(box.render()) if box.display else ""


def assert_submitted_exactly(app: FormsHost, action: str, payload: dict) -> Draft:
    assert len(app.submitted) == 1
    draft = app.submitted[0]
    assert draft.action == action
    assert dict(draft.payload) == payload
    assert validate_payload(CATALOG.get(action, FAMILIES), payload) == []
    assert draft.request() == compose_issue(action, payload, draft.nonce)
    return draft


# ------------------------------------------------------------------------- the picker


async def test_picker_offers_the_contexts_actions_first():
    app = host(ActionContext("agent", AGENT))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, ActionPicker)
        first = [(e.suggestion.action, dict(e.suggestion.prefill)) for e in picker.shown[:5]]
        assert first == [
            ("poke", {"target_agent": AGENT}),
            ("follow_agent", {"target_agent": AGENT}),
            ("unfollow_agent", {"target_agent": AGENT}),
            ("transfer_karma", {"target_agent": AGENT}),
            ("heartbeat", {}),
        ]
        assert len(picker.shown) == len(CATALOG)


async def test_picker_fuzzy_finds_and_escape_cancels():
    app = host(ActionContext("proposal", PROPOSAL))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"unvt")
        await pilot.pause()
        picker = app.screen
        assert [e.suggestion.action for e in picker.shown][0] == "unvote_seed"
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"crpost")
        await pilot.pause()
        assert [e.suggestion.action for e in picker.shown] == ["create_post"]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ActionPicker)
        assert app.submitted == []


async def test_picker_arrow_keys_choose():
    app = host(ActionContext("channel", CHANNEL))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("down", "enter")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, ActionForm)
        assert form.spec.name == "update_channel"
        assert form.row("slug").value == CHANNEL


# ------------------------------------------------------------------------- field families


async def test_prefilled_reference_submits_at_once():
    app = host(ActionContext("agent", AGENT))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "poke")
        assert form.row("target_agent").value == AGENT
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert_submitted_exactly(app, "poke", {"target_agent": AGENT})
        assert not isinstance(app.screen, ActionForm)


async def test_text_fields_and_channel_completion():
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "create_post")
        assert isinstance(form.row("channel"), ReferenceRow)
        assert isinstance(form.row("title").editor, Input)
        assert isinstance(form.row("body").editor, TextArea)
        assert app.focused is form.row("channel").editor
        await pilot.press(*CHANNEL[:3])
        await settle(pilot)
        row = form.row("channel")
        shown = [item.key for item in row.shown]
        assert row.completions.display and CHANNEL in shown
        for _ in range(shown.index(CHANNEL)):
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        assert row.value == CHANNEL
        await pilot.press("tab", *"Hello", "tab", *"first line", "enter", *"second")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert_submitted_exactly(
            app, "create_post", {"channel": CHANNEL, "title": "Hello", "body": "first line\nsecond"}
        )


async def test_integer_field_validates_as_you_type():
    app = host(ActionContext("agent", AGENT))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "transfer_karma")
        assert app.focused is form.row("amount").editor  # the first field left to fill
        await pilot.press("0")
        await pilot.pause()
        assert "must be at least 1" in problems_of(form, "amount")
        await pilot.press("backspace", *"101")
        await pilot.pause()
        assert "must be at most 100" in problems_of(form, "amount")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.submitted == [] and app.screen is form  # not sent while invalid
        await pilot.press(*(["backspace"] * 3), "5")
        await pilot.pause()
        assert problems_of(form, "amount") == ""
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert_submitted_exactly(app, "transfer_karma", {"target_agent": AGENT, "amount": 5})


async def test_required_fields_marked_on_submit_and_first_problem_focused():
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "create_channel")
        assert problems_of(form, "slug") == ""  # nothing shouted before the user acts
        await pilot.press("tab", *"Name")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert problems_of(form, "slug") == "\u2717 is required"
        assert problems_of(form, "description") == "\u2717 is required"
        assert problems_of(form, "name") == ""
        assert app.focused is form.row("slug").editor
        await pilot.press(*"Bad Slug")
        await pilot.pause()
        assert "has an invalid format" in problems_of(form, "slug")
        assert app.submitted == []


async def test_list_bool_and_choice_fields():
    app = host(catalog={FAMILIES.name: FAMILIES})
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "tune")
        assert isinstance(form.row("mood").editor, Select)
        assert isinstance(form.row("quiet").editor, Checkbox)
        assert isinstance(form.row("tags").editor, TextArea)
        assert app.focused is form.row("mood").editor
        await pilot.press("enter")  # open the select's list
        await pilot.pause()
        await pilot.press("down", "down", "enter")  # blank, calm, loud
        await pilot.pause()
        assert form.row("mood").value == "loud"
        await pilot.press("tab", "space")  # tick the checkbox
        await pilot.press("tab", *"ai", "enter", *"Bad")
        await pilot.pause()
        assert "line 2 has an invalid format" in problems_of(form, "tags")
        await pilot.press("backspace", "backspace", "backspace", *"art")
        await pilot.pause()
        assert problems_of(form, "tags") == ""
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert_submitted_exactly(
            app, "tune_agent", {"mood": "loud", "quiet": True, "tags": ["ai", "art"]}
        )


# ------------------------------------------------------------------------- preview


async def test_preview_toggles_in_80_columns_and_shows_the_exact_request():
    app = host(ActionContext("proposal", PROPOSAL))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "vote")
        preview = form.query_one(IssuePreview)
        assert not preview.display and form.query_one("#form-fields").display
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert preview.display and not form.query_one("#form-fields").display
        assert app.focused is preview
        shown = svg_text(app.export_screenshot())
        request = compose_issue("vote_seed", {"proposal_id": PROPOSAL}, form.nonce)
        for line in request.body.strip("\n").splitlines():
            if line:
                assert line in shown
        assert "labels vote-seed" in shown
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert not preview.display
        assert app.focused is form.row("proposal_id").editor


async def test_wide_terminal_shows_preview_beside_fields_and_follows_typing():
    app = host()
    async with app.run_test(size=(120, 40)) as pilot:
        form = await open_form(pilot, "propose")
        preview = form.query_one(IssuePreview)
        assert preview.display and form.query_one("#form-fields").display
        assert "Text: is required" in svg_text(app.export_screenshot())
        await pilot.press(*"Grow [bold]moss[/]")
        await pilot.pause()
        shown = svg_text(app.export_screenshot())
        assert '"text": "Grow [bold]moss[/]"' in shown  # literal, not markup
        assert "not ready" not in shown


# ------------------------------------------------------------------------- drafts


async def test_escape_keeps_the_draft_and_reopening_restores_it():
    drafts = MemoryDrafts()
    app = host(ActionContext("channel", CHANNEL), drafts=drafts)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "create_post")
        nonce = form.nonce
        assert app.focused is form.row("title").editor  # the channel came from the context
        await pilot.press(*"Half a title", "tab", *"bod")
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ActionForm | DiscardConfirm)
        kept = drafts.kept("create_post")
        assert kept is not None and kept.nonce == nonce
        assert kept.values == {"channel": CHANNEL, "title": "Half a title", "body": "bod"}
        await pilot.press("n")
        await pilot.pause()
        picker = app.screen
        assert [e.spec.name for e in picker.shown if e.drafted] == ["create_post"]
        assert "draft kept" in svg_text(app.export_screenshot())
        await pilot.press("escape")
        await pilot.pause()
        form = await open_form(pilot, "create_post")
        assert form.values() == dict(kept.values)
        assert form.nonce == nonce  # the same action: the same nonce
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert_submitted_exactly(
            app, "create_post", {"channel": CHANNEL, "title": "Half a title", "body": "bod"}
        )
        assert drafts.kept("create_post") is None  # submitted: no longer a draft


async def test_escape_on_an_untouched_form_keeps_nothing():
    drafts = MemoryDrafts()
    app = host(ActionContext("agent", AGENT), drafts=drafts)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_form(pilot, "follow")
        await pilot.press("escape")
        await settle(pilot)
        assert drafts.drafts == {}
        assert not isinstance(app.screen, ActionForm)


async def test_without_a_draft_keeper_escape_asks_only_with_unsaved_input():
    app = host(keep_drafts=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_form(pilot, "heartbeat")
        await pilot.press("escape")  # nothing typed: closes at once
        await settle(pilot)
        assert not isinstance(app.screen, ActionForm | DiscardConfirm)
        form = await open_form(pilot, "heartbeat")
        await pilot.press(*"busy")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, DiscardConfirm)
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is form and form.row("status_message").value == "busy"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert not isinstance(app.screen, ActionForm | DiscardConfirm)
        assert app.submitted == []


async def test_a_failing_submit_keeps_the_draft():
    drafts = MemoryDrafts()
    app = host(ActionContext("agent", AGENT), drafts=drafts)

    def broken(_draft: Draft) -> None:
        raise OSError("disk full")

    async with app.run_test(size=(80, 24)) as pilot:
        app.submit = broken  # type: ignore[method-assign]
        await open_form(pilot, "poke")
        await pilot.press("ctrl+s")
        await settle(pilot)
        kept = drafts.kept("poke")
        assert kept is not None and dict(kept.payload) == {"target_agent": AGENT}


# ------------------------------------------------------------------------- $EDITOR


@pytest.fixture
def editor(tmp_path: Path, monkeypatch) -> Path:
    """$EDITOR: a script that appends a line to the file it is given."""
    script = tmp_path / "fake-editor"
    script.write_text('#!/bin/sh\nprintf "%s\\nfrom the editor\\n" "$(cat "$1")" > "$1"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(script))
    return script


async def test_ctrl_e_edits_the_focused_text_field_in_editor(editor):
    app = host(ActionContext("channel", CHANNEL))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "create_post")
        await pilot.press("tab", *"typed here")
        assert app.focused is form.row("body").editor
        await pilot.press("ctrl+e")
        await settle(pilot)
        assert form.row("body").value == "typed here\nfrom the editor"
        await pilot.press("shift+tab")
        await pilot.press("ctrl+e")  # a one-line field: lines joined
        await settle(pilot)
        assert form.row("title").value == " from the editor"


async def test_ctrl_e_without_editor_says_how(monkeypatch, tmp_path):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no editor, no vi
    app = host()
    seen: list = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        form = await open_form(pilot, "propose")
        await pilot.press(*"x", "ctrl+e")
        await settle(pilot)
        assert form.row("text").value == "x"
        told = notices(seen)
        assert any("No editor found: set $VISUAL or $EDITOR" in m for m in told), told


async def test_ctrl_e_with_no_editor_variable_runs_vi_from_path(editor, monkeypatch, tmp_path):
    """As git does: with $VISUAL and $EDITOR unset, ``editor``, else ``vi``, from PATH."""
    monkeypatch.delenv("EDITOR")
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "vi").symlink_to(editor)
    (folder / "cat").symlink_to(shutil.which("cat"))  # the script's
    monkeypatch.setenv("PATH", str(folder))  # no editor, no other vi
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "propose")
        await pilot.press(*"x", "ctrl+e")
        await settle(pilot)
        assert form.row("text").value == "x\nfrom the editor"


# ------------------------------------------------------------------------- acting as


async def test_acting_as_line():
    app = host(ActionContext("agent", AGENT))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_form(pilot, "poke")
        assert "acting as kody-w" in svg_text(app.export_screenshot())


async def test_unknown_login_is_asked_on_opening_and_the_warning_follows():
    async def whoami() -> str | None:
        return "demo-user"

    app = host(login=None, whoami=whoami)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_form(pilot, "heartbeat")
        await settle(pilot)
        screen = svg_text(app.export_screenshot())
        assert "acting as demo-user" in screen
        assert "not registered here: send register_agent first" in screen


async def test_a_failed_check_on_opening_is_quiet_and_ctrl_g_tells_why():
    calls = 0

    async def whoami() -> str | None:
        nonlocal calls
        calls += 1
        raise RuntimeError("HTTP 401: bad credentials")

    app = host(login=None, whoami=whoami)
    seen: list = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        await open_form(pilot, "heartbeat")
        await settle(pilot)
        assert calls == 1
        assert "acting as the token's user (press ctrl+g to check)" in svg_text(
            app.export_screenshot()
        )
        assert notices(seen) == []  # opening did not complain
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert calls == 2
        assert notices(seen) == ["Could not check the token: HTTP 401: bad credentials"]


# ------------------------------------------------------------------------- hostile data


async def test_hostile_snapshot_text_in_completions_stays_literal():
    snapshot = demo_snapshot(docs=hostile_documents())
    app = host(snapshot=snapshot)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await open_form(pilot, "poke")
        row = form.row("target_agent")
        shown: set[str] = set()
        for query in ("[", "a", "id", "x"):
            await pilot.press(*(["backspace"] * 3), *query)
            await settle(pilot)
            screen = svg_text(app.export_screenshot())
            assert "\x1b" not in screen and "\x9b" not in screen
            shown.add(screen)
            assert row.completions.display
        everything = "\n".join(shown)
        assert "[@click=app.quit]" in everything
        assert "a[/]b" in everything
        assert "\u241b" in everything  # ESC made visible
        assert app.is_running
        for literal in ("[@click=app.quit]", "a[/]b", "[OK]", "[$accent]"):
            assert literal in LITERALS and literal in everything


async def test_typing_is_kept_without_escape_and_survives_the_app(tmp_path):
    """Autosave: what is typed reaches the keeper while the form is open (a crash or kill -9
    loses nothing), and a new app restores it."""
    folder = tmp_path / "drafts"
    app = host(ActionContext("channel", CHANNEL), drafts=FileDrafts(folder))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "create_post")
        form.autosave_delay = 0
        await pilot.press(*"Unsent")
        await settle(pilot)
        assert isinstance(app.screen, ActionForm)  # still open: nothing was closed
    kept = FileDrafts(folder).kept("create_post")
    assert kept is not None
    assert dict(kept.values) == {"channel": CHANNEL, "title": "Unsent", "body": ""}
    again = host(drafts=FileDrafts(folder))
    async with again.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "create_post")
        assert form.values() == dict(kept.values) and form.nonce == kept.nonce


async def test_escape_stays_open_when_the_draft_cannot_be_kept():
    class Full(MemoryDrafts):
        def keep(self, draft: Draft) -> None:
            raise OSError("No space left on device")

    app = host(drafts=Full())
    seen: list = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        form = await open_form(pilot, "heartbeat")
        await pilot.press(*"busy", "escape")
        await settle(pilot)
        assert app.screen is form and form.row("status_message").value == "busy"
        assert any("No space left" in message for message in notices(seen))


async def test_when_neither_the_outbox_nor_the_keeper_takes_it_the_form_opens_again():
    """The outbox refused the submit and the draft could not be kept either (a folder where its
    file goes): nothing typed is lost, the form comes back with it, and the user is told."""

    class Full(MemoryDrafts):
        def keep(self, draft: Draft) -> None:
            raise OSError("Is a directory")

    app = host(drafts=Full())

    def refuse(draft: Draft) -> None:
        raise RuntimeError("the outbox folder is read-only")

    app.submit = refuse  # type: ignore[method-assign]
    seen: list = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        await open_form(pilot, "heartbeat")
        await pilot.press(*"still here", "ctrl+s")
        await settle(pilot)
        assert app.is_running
        again = app.screen
        assert isinstance(again, ActionForm) and again.row("status_message").value == "still here"
        assert any(
            "Not sent: the outbox folder is read-only" in n and "Is a directory" in n
            for n in notices(seen)
        )


async def test_list_of_channels_completes_the_line_under_the_cursor():
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "heartbeat")
        await pilot.press("tab")
        row = form.row("subscribed_channels")
        assert app.focused is row.editor
        await pilot.press(*"gene")
        await settle(pilot)
        assert row.completions.display and row.shown[0].key == "general"
        await pilot.press("enter")  # takes the completion, and starts the next line
        await pilot.pause()
        assert row.value == "general\n" and not row.completions.display
        assert row.editor.cursor_location == (1, 0)
        await pilot.press(*"philo")
        await settle(pilot)
        await pilot.press("down", "enter")  # a second completion, if any, else the first
        await pilot.pause()
        lines = row.value.splitlines()
        assert lines[0] == "general" and lines[1].startswith("philo") and len(lines) == 2
        assert lines[1] in {c.key for c in form.references.search("channel", "philo")}
        assert row.editor.cursor_location == (2, 0)  # the next line, blank
        await pilot.press("up")  # no completions: the cursor moves
        assert row.editor.cursor_location[0] == 1
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert_submitted_exactly(app, "heartbeat", {"subscribed_channels": lines})


async def test_a_hostile_id_from_the_context_or_a_completion_is_shown_not_sent_raw():
    hostile = "id\x1b[2J"
    snapshot = demo_snapshot(docs=hostile_documents())
    assert hostile in snapshot.agents.agents
    app = host(ActionContext("agent", hostile), snapshot=snapshot)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "poke")
        row = form.row("target_agent")
        assert row.value == "id\u241b[2J"  # ESC made visible in the field
        if app.focused is not row.editor:  # the optional message is the next to fill
            await pilot.press("shift+tab")
        assert app.focused is row.editor
        await pilot.press("ctrl+a", "ctrl+k", *"id")
        await settle(pilot)
        keys = [item.key for item in row.shown]
        assert hostile in keys
        for _ in range(keys.index(hostile)):
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        assert row.value == "id\u241b[2J"
        await pilot.press("ctrl+s")
        await settle(pilot)
        # the deployment's contract sets no format for agent ids: what is sent is what the
        # field shows, the escape made visible, never the raw control character
        (draft,) = app.submitted
        assert draft.payload["target_agent"] == "id\u241b[2J"


async def test_escape_closes_completions_first_then_keys_are_the_editors():
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "heartbeat")
        await pilot.press("tab", *"gene")
        await settle(pilot)
        row = form.row("subscribed_channels")
        assert row.completions.display
        await pilot.press("escape")  # closes the completions, not the form
        await pilot.pause()
        assert app.screen is form and not row.completions.display
        await pilot.press("enter")  # the text area's own enter: a new line
        await pilot.pause()
        assert row.value == "gene\n"
        assert not row.completions.display  # a blank line offers nothing
        await pilot.press("enter")
        assert row.value == "gene\n\n"


async def test_a_failing_login_check_is_told_not_raised():
    async def whoami() -> str | None:
        raise ConnectionError("token rejected (401)")

    app = host(login=None, whoami=whoami)
    seen: list = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        form = await open_form(pilot, "heartbeat")
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert app.screen is form and form.login is None
        assert any("token rejected (401)" in message for message in notices(seen))


async def test_a_field_shows_its_default_and_the_rules_roost_does_not_check():
    """A skill.json field with a default and a keyword roost does not know: the form says
    both (the rule is the deployment's, not enforced here)."""
    from tui.actions.contract import parse_skill

    contract = parse_skill(
        {
            "actions": {
                "tally": {
                    "method": "github_issue",
                    "payload": {
                        "type": "object",
                        "properties": {
                            "action": {"const": "tally"},
                            "payload": {
                                "type": "object",
                                "properties": {
                                    "count": {
                                        "type": "integer",
                                        "default": 5,
                                        "multipleOf": 5,
                                        "description": "How many",
                                    }
                                },
                            },
                        },
                    },
                }
            }
        }
    )
    app = host(catalog=contract.actions)
    async with app.run_test(size=(100, 30)) as pilot:
        form = await open_form(pilot, "tally")
        heading = str(form.row("count").query_one(".field-label").render())
        assert "How many" in heading and "default 5" in heading
        assert "not checked here: multipleOf: 5" in heading
        await pilot.press("7", "ctrl+s")
        await settle(pilot)
        (draft,) = app.submitted
        assert (draft.action, dict(draft.payload)) == ("tally", {"count": 7})


async def test_the_problems_toast_follows_the_fixes_and_goes_once_they_are_done():
    """ctrl+s with problems says how many in a toast; fixing one says the new number, fixing
    the last takes it away (it used to stay, stale, for its whole timeout)."""
    app = host()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        form = await open_form(pilot, "create_channel")
        await pilot.press("tab", *"Name", "ctrl+s")
        await settle(pilot)
        assert "2 problems: fix the marked fields" in svg_text(app.export_screenshot())
        assert app.focused is form.row("slug").editor
        await pilot.press(*"good-slug")
        await settle(pilot)
        screen = svg_text(app.export_screenshot())
        assert "1 problem: fix the marked field," in screen and "2 problems" not in screen
        form.row("description").editor.focus()
        await pilot.press(*"About it")
        await settle(pilot)
        assert "problem" not in svg_text(app.export_screenshot())
        await pilot.press("backspace")  # still valid: no toast comes back while typing
        await settle(pilot)
        assert "problem" not in svg_text(app.export_screenshot())
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert len(app.submitted) == 1


async def test_the_problems_toast_goes_with_the_form():
    app = host()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await open_form(pilot, "create_channel")
        await pilot.press("tab", *"Name", "ctrl+s")
        await settle(pilot)
        assert "2 problems" in svg_text(app.export_screenshot())
        await pilot.press("escape")  # closed, the draft kept
        await settle(pilot)
        assert not isinstance(app.screen, ActionForm)
        assert "2 problems" not in svg_text(app.export_screenshot())


async def test_taking_a_completion_in_a_list_never_glues_the_next_item_to_it():
    """``gene`` enter (the completion) then ``nonexistent-channel`` in one go: two items, as
    typed (the next item used to land on the completed line: ``generalnonexistent-channel``);
    taken in the middle of a list, the next item gets a line of its own there too."""
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "heartbeat")
        await pilot.press("tab")
        row = form.row("subscribed_channels")
        await pilot.press(*"gene")
        await settle(pilot)
        assert row.completions.display
        await pilot.press("enter", *"nonexistent-channel")
        await settle(pilot)
        assert row.value.splitlines() == ["general", "nonexistent-channel"]
        await pilot.press("up", "home", "shift+end", *"gene")  # the first item typed again
        await settle(pilot)
        assert row.completions.display and row.shown[0].key == "general"
        await pilot.press("enter", *"poetry")
        await settle(pilot)
        # a line of its own for what comes next: the item below is left as it was
        assert row.value.splitlines() == ["general", "poetry", "nonexistent-channel"]


async def test_the_preview_comes_back_after_a_resize_unless_ctrl_t_hid_it():
    """120 → 80 → 120 columns: the preview is beside the fields again (it stayed hidden until
    ctrl+t); hidden with ctrl+t while wide, it stays hidden across resizes."""
    app = host()
    async with app.run_test(size=(120, 40)) as pilot:
        form = await open_form(pilot, "propose")
        preview, fields = form.query_one(IssuePreview), form.query_one("#form-fields")
        editor = form.row("text").editor
        assert preview.display and fields.display
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert not preview.display and fields.display and app.focused is editor
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert preview.display and fields.display and app.focused is editor
        await pilot.press("ctrl+t")  # hidden while wide: the user's choice
        await settle(pilot)
        assert not preview.display
        for size in ((80, 24), (120, 40)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            assert not preview.display and fields.display
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert preview.display
        await pilot.resize_terminal(80, 24)
        await pilot.press("ctrl+t")  # narrow: the preview takes the fields' place …
        await settle(pilot)
        assert preview.display and not fields.display and app.focused is preview
        await pilot.resize_terminal(120, 40)  # … and wide again, both, the field focused
        await settle(pilot)
        assert preview.display and fields.display and app.focused is editor


async def test_ctrl_r_throws_a_kept_draft_away_after_asking():
    drafts = MemoryDrafts()
    app = host(ActionContext("channel", CHANNEL), drafts=drafts)
    seen: list = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        await open_form(pilot, "create_post")
        await pilot.press(*"Half a title", "escape")
        await settle(pilot)
        assert drafts.kept("create_post") is not None
        form = await open_form(pilot, "create_post")  # restored
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert isinstance(app.screen, DiscardConfirm)
        assert "the kept draft with it" in svg_text(app.export_screenshot())
        await pilot.press("n")  # keep editing: nothing lost
        await settle(pilot)
        assert app.screen is form and drafts.kept("create_post") is not None
        await pilot.press("ctrl+r")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert not isinstance(app.screen, ActionForm | DiscardConfirm)
        assert drafts.kept("create_post") is None
        assert "create_post: draft discarded" in notices(seen)
        await pilot.press("n")
        await pilot.pause()
        assert not [e for e in app.screen.shown if e.drafted]  # the picker: no draft kept
        await pilot.press("escape")
        await pilot.pause()
        form = await open_form(pilot, "create_post")
        assert form.values()["title"] == ""
        assert app.submitted == []


async def test_ctrl_r_on_an_empty_form_closes_at_once_and_without_a_keeper_still_asks():
    app = host()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_form(pilot, "heartbeat")
        await pilot.press("ctrl+r")  # nothing typed: nothing to ask about
        await settle(pilot)
        assert not isinstance(app.screen, ActionForm | DiscardConfirm)
    app = host(keep_drafts=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_form(pilot, "heartbeat")
        await pilot.press(*"busy", "ctrl+r")
        await settle(pilot)
        assert isinstance(app.screen, DiscardConfirm)
        shown = svg_text(app.export_screenshot())
        assert "thrown away." in shown and "kept draft" not in shown
        await pilot.press("y")
        await settle(pilot)
        assert not isinstance(app.screen, ActionForm | DiscardConfirm)
        assert app.submitted == []


@pytest.mark.slow
@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)])
async def test_every_key_of_the_form_shows_at_any_width(size):
    """The keys at the form's foot wrap to a second line rather than lose the last ones."""
    app = host()
    async with app.run_test(size=size) as pilot:
        await open_form(pilot, "heartbeat")
        shown = svg_text(app.export_screenshot())
        for key, does in FORM_KEYS:
            assert f"{key} {does}" in shown, (key, shown)
