"""Every message roost defines is a dataclass nested on the class that sends it (the widget,
screen or app whose fact it states), with no hand-written ``__init__``; and compared by
identity, as an event is (it stays hashable)."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

from textual.message import Message

import tui.ui


def _roost_messages() -> list[type[Message]]:
    for info in pkgutil.walk_packages(tui.ui.__path__, "tui.ui."):
        importlib.import_module(info.name)
    found: list[type[Message]] = []
    classes: list[type] = [Message]
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        if cls.__module__.startswith("tui."):
            found.append(cls)
    return found


def test_roost_defines_messages():
    assert len(_roost_messages()) >= 20  # the walk below really sees them


def test_each_message_is_a_dataclass_nested_on_its_sender():
    wrong = []
    for message in _roost_messages():
        name = f"{message.__module__}.{message.__qualname__}"
        if "." not in message.__qualname__:
            wrong.append(f"{name}: not nested on the class that sends it")
        own_init = "__init__" in vars(message)
        if own_init and not dataclasses.is_dataclass(message):
            wrong.append(f"{name}: writes its own __init__")
        if dataclasses.is_dataclass(message) and message.__hash__ is None:
            wrong.append(f"{name}: compared by its fields (use @dataclass(eq=False))")
    assert wrong == []
