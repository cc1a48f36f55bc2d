"""vim's motion keys, defined once: each table, list and text binds them to its own actions.

``j``/``k`` a line down and up, ``g``/``G`` to the top and the bottom, ``ctrl+d``/``ctrl+u``
half a page down and up (as in k9s and lazygit). A widget says which of these motions it has
and which of its actions does each (:func:`vim_bindings`); the keys and their descriptions in
help come from :data:`MOTIONS` alone.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.binding import Binding, BindingType

__all__ = ["MOTIONS", "vim_bindings"]

#: motion -> (key, description)
MOTIONS: dict[str, tuple[str, str]] = {
    "down": ("j", "Down"),
    "up": ("k", "Up"),
    "top": ("g", "Top"),
    "bottom": ("G", "Bottom"),
    "half_down": ("ctrl+d", "Half a page down"),
    "half_up": ("ctrl+u", "Half a page up"),
}


def vim_bindings(
    actions: Mapping[str, str],
    *,
    scope: str | None = None,
    ids: Mapping[str, str] | None = None,
    names: Mapping[str, str] | None = None,
    priority: bool = False,
) -> list[BindingType]:
    """The vim keys of the motions in ``actions`` (motion -> the widget's action), hidden from
    the key bar. Each binding's id is ``scope.ids[motion]`` (default: ``scope.key``; no
    ``scope``, no id); its description :data:`MOTIONS`', or ``names[motion]`` where the widget
    says what it moves to ("First row")."""
    bindings: list[BindingType] = []
    for motion, action in actions.items():
        key, description = MOTIONS[motion]
        description = (names or {}).get(motion, description)
        name = (ids or {}).get(motion, key)
        bindings.append(
            Binding(
                key,
                action,
                description,
                show=False,
                priority=priority,
                id=f"{scope}.{name}" if scope else None,
            )
        )
    return bindings
