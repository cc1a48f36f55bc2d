"""Every binding roost declares, by id, and the person's ``[keymap]`` checked against them.

:func:`binding_catalog` imports every module of the dashboard and reads each screen's and
widget's own ``BINDINGS``: one :class:`BindingInfo` per id (its default keys, action,
description and the places it applies). `roost keys` prints it; :func:`checked_keymap` refuses,
before the dashboard starts, an id that is not there (with the closest one), a key a terminal
cannot send, and two ids on one key in one place; what it returns is what ``App.set_keymap``
takes. Help and the palette show declared bindings through :func:`rebound`, the key bar reads
the live ones, so all three show the keys chosen.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache

from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import Keys, key_to_character

from tui.config import ConfigError
from tui.keymap import KeyChoice
from tui.suggest import did_you_mean
from tui.ui.textual_compat import character_to_key

__all__ = [
    "BindingInfo",
    "binding_catalog",
    "checked_keymap",
    "class_bindings",
    "key_label",
    "normal_key",
    "place_of",
    "rebound",
]

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
_KEY_NAMES = frozenset(
    key.value.rpartition("+")[2] for key in Keys if not key.value.startswith("<")
) | {character_to_key(character) for character in string.punctuation}

#: What a class is called where its keys apply, when it says nothing itself.
_PLACES = {
    "RoostApp": "everywhere",
    "StateScreen": "every tab",
    "TableScreen": "every table tab",
    "PostTableScreen": "the tabs of posts",
    "VirtualTable": "tables",
    "ClosingModal": "dialogs",
}


def normal_key(key: str) -> str | None:
    """``key`` as Textual names it (``"?"`` → ``"question_mark"``), or None when it is not a
    key a terminal sends: modifiers joined by ``+`` and one key name or character."""
    *modifiers, name = key.split("+") if key != "+" else ("+",)
    if any(modifier not in MODIFIERS for modifier in modifiers) or not name:
        return None
    if len(name) == 1:
        if not name.isprintable() or name == " ":
            return None
        name = character_to_key(name)
    elif name not in _KEY_NAMES and key_to_character(name) is None:
        return None
    return "+".join([*modifiers, name])


_PUNCTUATION = {character_to_key(character): character for character in string.punctuation}


def key_label(key: str) -> str:
    """A key as a person types it: ``question_mark`` → ``?``, ``ctrl+slash`` → ``ctrl+/``."""
    *modifiers, name = key.split("+") if key != "+" else ("+",)
    return "+".join([*modifiers, _PUNCTUATION.get(name, name)])


def place_of(cls: type) -> str:
    """Where the keys of ``cls`` act, in words: a tab's title, a widget's help title."""
    if title := getattr(cls, "TAB_TITLE", ""):
        return f"{title} tab" if getattr(cls, "TAB_ID", None) else str(title)
    if title := cls.__dict__.get("HELP_TITLE") or _PLACES.get(cls.__name__):
        return str(title)
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", cls.__name__).lower()
    return words.removesuffix(" screen")


@dataclass(frozen=True, slots=True)
class BindingInfo:
    """One binding id: its default keys, what it does and where."""

    id: str
    keys: tuple[str, ...]
    action: str
    description: str
    places: tuple[str, ...] = ()
    classes: tuple[type, ...] = field(default=(), repr=False)


def _own(cls: type) -> list[Binding]:
    return list(Binding.make_bindings(cls.__dict__.get("BINDINGS", ())))


@cache
def _binding_classes() -> tuple[type[DOMNode], ...]:
    """Every class of the dashboard that declares bindings (every module imported)."""
    # deferred: off the start path
    import tui.ui

    found: dict[type, None] = {}
    for module in pkgutil.walk_packages(tui.ui.__path__, "tui.ui."):
        loaded = importlib.import_module(module.name)
        for value in vars(loaded).values():
            if (
                isinstance(value, type)
                and issubclass(value, DOMNode)
                and value.__module__ == module.name
                and value.__dict__.get("BINDINGS")
            ):
                found[value] = None
    return tuple(found)


def binding_catalog() -> dict[str, BindingInfo]:
    """Every binding id roost declares, sorted by id."""
    infos: dict[str, BindingInfo] = {}
    for cls in _binding_classes():
        for binding in _own(cls):
            if binding.id is None:
                continue
            info = infos.get(binding.id)
            if info is None:
                infos[binding.id] = BindingInfo(
                    binding.id,
                    (binding.key,),
                    binding.action,
                    binding.description,
                    (place_of(cls),),
                    (cls,),
                )
                continue
            keys = info.keys if binding.key in info.keys else (*info.keys, binding.key)
            places = info.places if place_of(cls) in info.places else (*info.places, place_of(cls))
            infos[binding.id] = BindingInfo(
                info.id, keys, info.action, info.description, places, (*info.classes, cls)
            )
    return dict(sorted(infos.items()))


def class_bindings(cls: type) -> list[Binding]:
    """The bindings an instance of ``cls`` has from roost's classes (a subclass's binding of a
    key replaces its base's)."""
    by_key: dict[str, list[Binding]] = {}
    for base in reversed(cls.__mro__):
        if base.__dict__.get("BINDINGS") and not base.__module__.startswith("textual."):
            own: dict[str, list[Binding]] = {}
            for binding in _own(base):
                own.setdefault(binding.key, []).append(binding)
            by_key.update(own)
    return [binding for bindings in by_key.values() for binding in bindings]


def rebound(bindings: Iterable[Binding], keymap: Mapping[str, str]) -> list[Binding]:
    """``bindings`` with the keymap's keys for the ids it names, as Textual applies it: the
    first binding of such an id takes the chosen keys, its other default keys go."""
    result: list[Binding] = []
    done: set[str] = set()
    for binding in bindings:
        keys = keymap.get(binding.id) if binding.id else None
        if keys is None:
            result.append(binding)
        elif binding.id not in done:
            done.add(binding.id)  # type: ignore[arg-type]
            result.extend(binding.with_key(key, key_display=None) for key in keys.split(","))
    return result


def _refuse(choice: KeyChoice, binding_id: str, why: str) -> ConfigError:
    return ConfigError(f"{choice.origin} [keymap] {binding_id}: {why}")


def checked_keymap(keymap: Mapping[str, KeyChoice]) -> dict[str, str]:
    """The keymap as ``App.set_keymap`` takes it, every key normalised; a wrong id or key, or
    two ids on one key in one place, is a :class:`~tui.config.ConfigError` naming the file,
    profile and id."""
    if not keymap:
        return {}
    catalog = binding_catalog()
    chosen: dict[str, tuple[str, ...]] = {}
    for binding_id, choice in keymap.items():
        if binding_id not in catalog:
            guess = did_you_mean(binding_id, catalog)
            raise _refuse(
                choice,
                binding_id,
                "no binding has this id"
                + (f"; {guess}" if guess else "")
                + " (roost keys lists them)",
            )
        keys = []
        for key in choice.keys:
            normal = normal_key(key)
            if normal is None:
                raise _refuse(
                    choice,
                    binding_id,
                    f"{key!r} is not a key (a key name such as f5, pageup, question_mark, "
                    "or one character, after ctrl+, alt+ or shift+)",
                )
            keys.append(normal)
        chosen[binding_id] = tuple(dict.fromkeys(keys))
    for cls in sorted(_binding_classes(), key=lambda cls: len(cls.__mro__)):  # bases first
        _check_place(cls, chosen, keymap)
    return {binding_id: ",".join(keys) for binding_id, keys in chosen.items()}


def _check_place(
    cls: type, chosen: Mapping[str, tuple[str, ...]], keymap: Mapping[str, KeyChoice]
) -> None:
    """Refuse a chosen key that another binding of ``cls`` keeps, or is given, for another
    action (the same action on two ids, as ``down`` and vim's ``j``, is no clash)."""
    bindings = class_bindings(cls)
    holders: dict[str, list[Binding]] = {}
    for binding in bindings:
        if binding.id not in chosen:  # its default keys stay
            holders.setdefault(binding.key, []).append(binding)
    first = {binding.id: binding for binding in reversed(bindings) if binding.id in chosen}
    for binding_id, binding in first.items():
        for key in chosen[binding_id]:  # type: ignore[index]
            for rival in holders.get(key, ()):
                if rival.id != binding_id and rival.action != binding.action:
                    what = rival.id or f"{rival.description or rival.action} (not rebindable)"
                    raise _refuse(
                        keymap[binding_id],  # type: ignore[index]
                        binding_id,  # type: ignore[arg-type]
                        f"{key} is also {what}'s key in {place_of(cls)}; choose another key"
                        + (f" or rebind {rival.id} too" if rival.id else ""),
                    )
            holders.setdefault(key, []).append(binding)
