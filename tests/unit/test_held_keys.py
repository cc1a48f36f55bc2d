"""Held keys are typed again in the order they were typed, whichever way each was held."""

from __future__ import annotations

from textual import events

from tui.ui.speed.held_keys import HeldKeys


class _App:
    def __init__(self) -> None:
        self.posted: list[events.Key] = []

    def post_message(self, message: events.Key) -> None:
        self.posted.append(message)


def _key(key: str) -> events.Key:
    return events.Key(key, {"right_square_bracket": "]"}.get(key, key))


def test_keys_held_as_they_come_are_typed_again_in_that_order() -> None:
    app = _App()
    held = HeldKeys(app)  # type: ignore[arg-type]
    for key in ("right_square_bracket", "j", "k"):
        held.hold(_key(key))
    held.type_again()
    assert [event.key for event in app.posted] == ["right_square_bracket", "j", "k"]
    assert not held


def test_a_key_coming_back_goes_before_the_keys_held_since_it_arrived() -> None:
    """``5]]jj`` in one write: the first ``]`` went to the tab before (it comes back unhandled
    later); the keys after it were held while the new tab's body mounted."""
    app = _App()
    held = HeldKeys(app)  # type: ignore[arg-type]
    first = held.arrival()  # the first "]" arrives and goes to the tab on view
    for key in ("right_square_bracket", "j", "j"):
        held.hold(_key(key))  # the rest arrive while the new tab mounts: held
    held.hold(_key("right_square_bracket"), first)  # the first "]" comes back, unhandled
    held.type_again()
    assert [event.key for event in app.posted] == ["right_square_bracket"] * 2 + ["j", "j"]


def test_arrivals_only_grow() -> None:
    held = HeldKeys(_App())  # type: ignore[arg-type]
    assert held.arrival() < held.arrival() < held.arrival()
