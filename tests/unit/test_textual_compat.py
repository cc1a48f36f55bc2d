"""tui/ui/textual_compat.py: every private Textual name roost uses still exists on the installed
Textual, and no other module of roost reaches a private Textual name.

When this fails after a Textual upgrade, the name it reports is the one to look at again in
textual_compat.py (and only there)."""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
from pathlib import Path

import pytest
import textual.timer
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.screen import Screen
from textual.timer import EventTargetGone, Timer

import tui
from tui.ui import textual_compat
from tui.ui.textual_compat import PRIVATE_NAMES

TUI = Path(tui.__file__).resolve().parent


def _owner(where: str) -> object:
    try:
        return importlib.import_module(where)
    except ImportError:
        module, _, name = where.rpartition(".")
        return getattr(importlib.import_module(module), name)


def _instance(owner: object) -> object | None:
    """An instance of ``owner``, for names Textual sets in ``__init__``."""
    if owner is Stylesheet:
        return Stylesheet()
    if owner is App:
        return App()
    if owner is Screen:
        return Screen()
    if owner is DOMNode:
        return DOMNode()
    return None


@pytest.mark.parametrize(("where", "name"), PRIVATE_NAMES, ids=lambda v: str(v))
def test_each_private_name_still_exists_on_the_installed_textual(where, name):
    owner = _owner(where)
    if hasattr(owner, name):
        return
    instance = _instance(owner)
    assert instance is not None and hasattr(instance, name), (
        f"Textual no longer has {where}.{name}: roost uses it in tui/ui/textual_compat.py"
    )


def _textual_privates(path: Path) -> list[str]:
    """Private names of Textual's that ``path`` reaches: imports from a private Textual module,
    and attributes named like one of :data:`PRIVATE_NAMES` on something that is not ``self``
    defining its own (a roost class may have attributes of its own that start with ``_``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    private = {name for _, name in PRIVATE_NAMES if name.startswith("_")}
    private |= {"_forward_event", "_is_associated_tabs", "_tabbed_content"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("textual"):
            if any(part.startswith("_") for part in node.module.split(".")):
                found.append(f"{path.name}:{node.lineno} imports {node.module}")
        elif isinstance(node, ast.Attribute) and node.attr in private:
            found.append(f"{path.name}:{node.lineno} uses .{node.attr}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in private:
            found.append(f"{path.name}:{node.lineno} overrides {node.name}")
    return found


def test_no_module_but_the_compat_one_reaches_a_private_textual_name():
    compat = Path(textual_compat.__file__).resolve()
    found = [
        hit
        for path in sorted(TUI.rglob("*.py"))
        if path.resolve() != compat
        for hit in _textual_privates(path)
    ]
    assert found == []


def test_the_check_sees_what_it_looks_for(tmp_path):
    """The scan above finds each kind of use (a check that cannot fail would prove nothing)."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from textual.widgets._tabbed_content import ContentTabs\n"
        "screen._css_update_count = 1\n"
        "class S(Stylesheet):\n"
        "    def _parse_rules(self): ...\n"
        "class F(Input):\n"
        "    async def _on_key(self, event): ...\n"
    )
    assert len(_textual_privates(sample)) == 4


# ------------------------------------------------------------------ punctual timers


def test_the_copied_timer_loop_is_the_installed_textuals():
    """``_punctual_run`` is Textual's ``Timer._run`` but for one line: when Textual changes
    that method, this fails, and the copy is made again from the new one (or dropped)."""
    source = inspect.getsource(textual_compat.TEXTUAL_TIMER_RUN)
    assert hashlib.sha256(source.encode()).hexdigest() == textual_compat.TIMER_RUN_SHA256, (
        "Textual's Timer._run changed: copy it again into textual_compat._punctual_run"
    )


class _Clock:
    """Textual's clock, faked: ``sleep`` moves it on at once."""

    def __init__(self) -> None:
        self.now = 100.0

    def get_time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


class _Recording(Timer):
    """A timer whose ticks are written down: when each came and when it was due. On its second
    tick the loop is held up ``busy`` seconds (a frame being drawn, a paused screen)."""

    def __init__(self, clock: _Clock, busy: float, ticks: int) -> None:
        self.target_kept = _Clock()  # any object a weak reference can point at
        super().__init__(self.target_kept, 1 / 60)
        self.clock, self.busy, self.ticks_wanted = clock, busy, ticks
        self.ticks: list[tuple[float, float]] = []

    async def _tick(self, *, next_timer: float, count: int) -> None:
        self.ticks.append((self.clock.now, next_timer))
        if len(self.ticks) == 2:
            self.clock.now += self.busy
        if len(self.ticks) == self.ticks_wanted:
            raise EventTargetGone


@pytest.mark.parametrize("busy", [0.02, 0.0501, 0.31234, 0.9993])  # off the 60 Hz grid
@pytest.mark.parametrize("punctual", [True, False], ids=["punctual", "textual"])
async def test_a_timer_late_for_its_ticks_comes_back_at_the_next_one(monkeypatch, busy, punctual):
    """After ticks it was too late for, a timer skips to the next tick due: at most one
    interval away. Textual's loop waited for the one after (more than an interval), which held
    every screen's second frame after a key a tick longer."""
    interval = 1 / 60
    clock = _Clock()
    monkeypatch.setattr(textual_compat._time, "get_time", clock.get_time)
    monkeypatch.setattr(textual_compat._time, "sleep", clock.sleep)
    monkeypatch.setattr(textual.timer, "sleep", clock.sleep)  # Textual's loop imported it
    timer = _Recording(clock, busy, ticks=4)
    loop = textual_compat._punctual_run if punctual else textual_compat.TEXTUAL_TIMER_RUN
    await loop(timer)
    (first, _), (second, _), (third, due), (fourth, _) = timer.ticks
    start = first - interval
    assert (second - start) == pytest.approx(2 * interval)
    assert third == due  # each tick comes at the time it was due, on the clock's grid
    assert (third - start) / interval == pytest.approx(round((third - start) / interval))
    wait = third - (second + busy)  # from when the loop was free again
    if punctual:
        assert 0 < wait <= interval + 1e-9, wait
    else:  # Textual's own: one tick more
        assert interval < wait <= 2 * interval + 1e-9, wait
    assert fourth - third == pytest.approx(interval)


async def test_punctual_timers_go_in_and_come_out():
    try:
        textual_compat.punctual_timers(False)
        assert Timer._run is textual_compat.TEXTUAL_TIMER_RUN
        textual_compat.punctual_timers()
        assert Timer._run is textual_compat._punctual_run
    finally:
        textual_compat.punctual_timers(False)
