"""tui/ui/textual_compat.py: every private Textual name roost uses still exists on the installed
Textual, and no other module of roost reaches a private Textual name.

When this fails after a Textual upgrade, the name it reports is the one to look at again in
textual_compat.py (and only there)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.screen import Screen

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
