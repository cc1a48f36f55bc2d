"""tui/errors.py: one base for every error a person sees, with its message and next step."""

from __future__ import annotations

import pytest

from tui.actions.issue_body import IssueBodyError
from tui.actions.issue_client import LookupFailed
from tui.actions.token import TokenError
from tui.config import ConfigError, load_settings
from tui.eggs.canonical_json import CanonicalJsonError
from tui.eggs.download import DownloadFailed, DownloadRefused, HubUnreachable
from tui.eggs.legacy_zip import LegacyFormatError
from tui.eggs.sources import SourceError
from tui.eggs.zip_reader import ZipFormatError
from tui.errors import RoostError
from tui.network.fetch import FetchError, TooLarge
from tui.network.models import StateValidationError


@pytest.mark.parametrize(
    "error",
    [
        ConfigError("x"),
        TokenError("x"),
        IssueBodyError("x"),
        LookupFailed("x"),
        FetchError("https://h.example/s", "x"),
        TooLarge("https://h.example/s", 10, 11),
        StateValidationError("agents.json", [("$.x", "bad")]),
        DownloadFailed("x"),
        DownloadRefused("record.url", "x"),
        HubUnreachable("x"),
        SourceError("x"),
        ZipFormatError("rule", "x"),
        LegacyFormatError("rule", "x"),
        CanonicalJsonError("x"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_every_error_a_person_sees_has_the_one_base_and_a_message(error):
    assert isinstance(error, RoostError)
    assert error.message == str(error) and error.message
    assert error.describe() == error.message  # no hint unless one is given


def test_the_errors_that_were_value_errors_still_are():
    for kind in (ConfigError, TokenError, IssueBodyError, StateValidationError, ZipFormatError):
        assert issubclass(kind, ValueError)


def test_a_hint_follows_the_message():
    error = TokenError("token lacks the repo scope", hint="create one with repo, then press T")
    assert error.message == "token lacks the repo scope"
    assert error.describe() == "token lacks the repo scope (create one with repo, then press T)"


def test_a_settings_error_from_the_loader_is_one(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("interval = 'soon'\n")
    with pytest.raises(RoostError, match="interval must be a number"):
        load_settings({}, env={}, path=path)
