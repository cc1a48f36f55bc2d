"""tui/ui/widgets/vim.py: vim's motion keys are defined once; every table, list and text binds
them to its own actions through it."""

from __future__ import annotations

import ast
from pathlib import Path

from tui.ui import widgets
from tui.ui.widgets.vim import MOTIONS, vim_bindings

UI = Path(widgets.__file__).resolve().parents[1]
VIM_KEYS = {key for key, _ in MOTIONS.values()}


def _bound_vim_keys(path: Path) -> list[str]:
    """``Binding("j", ...)`` and the like written out in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "Binding"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value in VIM_KEYS
        ):
            found.append(f"{path.relative_to(UI).as_posix()}:{node.lineno} {node.args[0].value}")
    return found


def test_no_module_writes_a_vim_key_of_its_own():
    # the Boots tab (screens/boots) is being rewritten elsewhere: its own are left to it
    found = [
        hit
        for path in sorted(UI.rglob("*.py"))
        if path.name != "vim.py" and "boots" not in path.parts
        for hit in _bound_vim_keys(path)
    ]
    assert found == []


def test_the_bindings_take_keys_and_names_from_the_one_table():
    bindings = vim_bindings({"down": "cursor_down", "top": "first"}, scope="t", ids={"top": "x"})
    assert [(b.key, b.action, b.description, b.id) for b in bindings] == [
        ("j", "cursor_down", "Down", "t.j"),
        ("g", "first", "Top", "t.x"),
    ]
    assert not any(b.show for b in bindings)
