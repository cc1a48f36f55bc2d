"""Settings: defaults < config file (top level, then the chosen profile) < environment < flags.

The config file is ``$XDG_CONFIG_HOME/roost/config.toml`` (``~/.config/roost/config.toml``)::

    profile = "rappterbook"            # the profile used when none is named

    [profiles.rappterbook]
    read_url = "https://raw.githubusercontent.com/OWNER/REPO/main"
    write_url = "https://api.github.com"
    repo = "OWNER/REPO"
    interval = 60
    agent = "zion-coder-03"            # the agent whose inbox roost shows
    bell = true                        # ring the terminal bell on a new notification
    readonly = true                    # post nothing, look for no token (also --readonly)
    theme = "nord"                     # one of Textual's themes, or one under [themes.NAME]

    [profiles.rappterbook.keymap]      # binding id = keys (`roost keys` lists the ids)
    "app.refresh" = "f5,r"

``[keymap]`` and ``[themes.NAME]`` may be at the top level and in a profile; the profile's
choice of an id (or a theme's name) wins. Their shape is checked here (tui/keymap.py); the ids,
keys and colours against the dashboard's own bindings and themes (tui/ui/keymap.py).

With no read URL anywhere, roost runs on the embedded demo network (in-process, no sockets).

What the layers say of the token (the config file's ``token``, the variables) and of read-only
goes to the run's :class:`~tui.session.Session`, not to the settings: :func:`load` returns both.
The token is a :class:`Secret`, hidden from ``repr``/``str``, and only unwrapped by the issue
client when it sends a request to the write URL's origin.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from tui.errors import RoostError
from tui.keymap import KeyChoice, KeymapError, ThemeChoice, parse_keymap, parse_themes
from tui.locations import config_path
from tui.network.urls import check_url, redact_url
from tui.pulse.agent_id import AGENT_ID_RULE, is_agent_id
from tui.session import Secret, Session
from tui.suggest import did_you_mean

__all__ = [
    "DEMO_BASE_URL",
    "ConfigError",
    "Secret",
    "Session",
    "Settings",
    "config_path",
    "load",
    "load_settings",
    "session_of",
]

ENV_VARS = {
    "read_url": "ROOST_READ_URL",
    "write_url": "ROOST_WRITE_URL",
    "repo": "ROOST_REPO",
    "hub_url": "ROOST_HUB_URL",
    "boots": "ROOST_BOOTS",
    "interval": "ROOST_INTERVAL",
    "cache_dir": "ROOST_CACHE_DIR",
    "processor_login": "ROOST_PROCESSOR_LOGIN",
    "agent": "ROOST_AGENT",
    "readonly": "ROOST_READONLY",
    "theme": "ROOST_THEME",
}
TOKEN_ENV_VARS = (
    "ROOST_TOKEN",
    "RAPPTERBOOK_TOKEN",
    "DISCUSSIONS_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
)
#: Token variables any GitHub tool reads: set for other tools, they do not point roost anywhere.
AMBIENT_TOKEN_VARS = ("GH_TOKEN", "GITHUB_TOKEN")
DEFAULT_WRITE_URL = "https://api.github.com"
DEMO_BASE_URL = "http://demo.roost.invalid"  # the embedded demo network (served in-process)


class ConfigError(RoostError, ValueError):
    """The config file or a setting is wrong; the message says which and how to fix it."""


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """What the person configured, layer over layer, and where each choice was made; nothing a
    run learns (the token, the SSH role, read-only's reason: :class:`~tui.session.Session`).

    A frozen msgspec ``Struct``: made on every start, where a dataclass's methods would be
    compiled from source (ARCHITECTURE.md, the read side); change it with :meth:`as_demo` or
    ``msgspec.structs.replace``.
    """

    read_url: str | None = None
    write_url: str | None = None
    repo: str | None = None
    hub_url: str | None = None
    boots: str | None = None
    interval: float = 60.0
    cache_dir: Path | None = None
    #: The profile of the config file chosen (``--profile``, ``ROOST_PROFILE``, ``profile``).
    profile: str | None = None
    #: The config file read (or looked for: it may not exist).
    config_file: Path | None = None
    #: The config file's ``[actions.NAME]`` tables: a deployment's own or overridden actions.
    actions: Mapping[str, Any] | None = None
    #: The account whose comments are the processor's verdicts (default github-actions[bot]).
    processor_login: str | None = None
    #: The agent whose inbox roost shows (None: not set; the inbox says how to set it).
    agent: str | None = None
    #: Ring the terminal bell when a new notification arrives (config only).
    bell: bool = False
    #: Read-only asked for: no token is looked for, no write side built (tui/read_only.py).
    readonly: bool = False
    #: ``[keymap]``: binding id -> the keys chosen and where (tui/keymap.py).
    keymap: Mapping[str, KeyChoice] = msgspec.field(default_factory=dict)
    #: The theme's name: one of Textual's, or one of :attr:`themes`.
    theme: str | None = None
    #: ``[themes.NAME]``: themes of the person's own.
    themes: Mapping[str, ThemeChoice] = msgspec.field(default_factory=dict)
    #: Where each setting given was set (the file and profile, a variable, a flag): a setting
    #: given wins over one the dashboard remembered (tui/preferences.py).
    given: Mapping[str, str] = msgspec.field(default_factory=dict)

    @property
    def demo(self) -> bool:
        """No service configured: the embedded demo network is used."""
        return not self.read_url

    @property
    def state_url(self) -> str:
        """Where the state files are read from (the demo network's own address for the demo)."""
        return self.read_url or DEMO_BASE_URL

    def as_demo(self) -> Settings:
        """These settings pointed at the embedded demo network (`roost demo`): the service's
        URLs and repository set aside (a hub given beside no service at all is kept)."""
        if self.demo and not (self.write_url or self.repo):
            return self
        return msgspec.structs.replace(self, read_url=None, write_url=None, repo=None, hub_url=None)

    @property
    def display_url(self) -> str:
        """The read URL as it may be shown or written out: credentials replaced by ``***``."""
        return "demo network" if self.demo else redact_url(self.read_url or "")

    def service_label(self) -> str:
        """Host and path of the read URL for a status bar, credentials removed."""
        if self.demo:
            return "demo network"
        shown = self.display_url
        return shown.split("://", 1)[-1].removeprefix("***@").rstrip("/") or shown


def session_of(settings: Settings) -> Session:
    """The session ``settings`` imply before anything is learned: read-only where they say so
    (and who said it), no token, no role. What :func:`load` starts from, and what
    :func:`tui.service.connect` uses when it is handed settings alone."""
    if not settings.readonly:
        return Session()
    return Session(readonly_source=settings.given.get("readonly", "--readonly"))


def _read_config(path: Path, required: bool = False) -> dict[str, Any]:
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        if required:
            raise ConfigError(f"{path}: config file not found") from None
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    import tomllib  # only when there is a file: not on every start's path

    with handle:
        try:
            return tomllib.load(handle)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc}); fix or remove the file") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8"
            ) from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None


#: The keys a config file may set: every setting but those that say where the others came from,
#: and the token (config file only; it goes to the session, never into the settings).
_KEYS = (set(Settings.__struct_fields__) - {"profile", "config_file", "given"}) | {"token"}
_MERGED = ("keymap", "themes")  # tables a profile adds to, id by id, rather than replaces
_URL_KEYS = ("read_url", "write_url", "hub_url")


def _coerce(key: str, value: Any, origin: str) -> Any:
    if value is None:
        return None
    if key == "interval":
        try:
            if isinstance(value, bool):
                raise TypeError
            number = float(value)
        except (TypeError, ValueError):
            raise ConfigError(
                f"{origin}: interval must be a number of seconds, got {_shown(value)}"
            ) from None
        if not math.isfinite(number) or number < 1:
            raise ConfigError(
                f"{origin}: interval must be a finite number of seconds, at least 1 "
                f"(got {_shown(value)})"
            )
        return number
    if key == "token":
        if not isinstance(value, str):
            raise ConfigError(f"{origin}: token must be a string")
        return Secret(value) if value else None
    if key in ("bell", "readonly"):
        if isinstance(value, str) and origin.startswith("environment "):  # ROOST_READONLY=1
            value = _ENV_BOOLS.get(value.strip().lower(), value)
        if not isinstance(value, bool):
            raise ConfigError(f"{origin}: {key} must be true or false, got {_shown(value)}")
        return value
    if key in _MERGED:
        try:
            return (parse_keymap if key == "keymap" else parse_themes)(value, origin)
        except KeymapError as exc:
            raise ConfigError(str(exc)) from None
    if key == "actions":
        if not isinstance(value, Mapping):
            raise ConfigError(f"{origin}: [actions] must be a table of [actions.NAME] tables")
        return dict(value)
    if not isinstance(value, str):
        raise ConfigError(f"{origin}: {key} must be a string, got {type(value).__name__}")
    if key == "cache_dir":
        if not value.strip() or "\x00" in value:
            raise ConfigError(f"{origin}: cache_dir must be a folder path")
        return Path(value).expanduser()
    value = value.strip()
    if (
        key == "processor_login"
        and value
        and not re.fullmatch(r"[A-Za-z0-9][\w.\[\]-]{0,99}", value)
    ):
        raise ConfigError(
            f"{origin}: processor_login must be an account login, got {_shown(value)}"
        )
    if key == "agent" and value and not is_agent_id(value):
        raise ConfigError(
            f"{origin}: agent must be an agent id ({AGENT_ID_RULE}), got {_shown(value)}"
        )
    if key == "repo" and value and value.count("/") != 1:
        raise ConfigError(f"{origin}: repo must look like OWNER/NAME, got {_shown(value)}")
    if key in _URL_KEYS and value and (why := check_url(value)):
        raise ConfigError(f"{origin}: {key} {why}: {redact_url(value)}")
    return value or None


_ENV_BOOLS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def _shown(value: Any) -> str:
    """A setting's value for an error message: one line, control characters escaped."""
    return ascii(value)[:80]


def load_settings(
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    path: Path | None = None,
    *,
    required: bool = False,
    demo: bool = False,
    looks_for_token: bool = True,
) -> Settings:
    """The settings of :func:`load`, for a caller that needs no session (`roost keys`)."""
    return load(flags, env, path, required=required, demo=demo, looks_for_token=looks_for_token)[0]


def load(
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    path: Path | None = None,
    *,
    required: bool = False,
    demo: bool = False,
    looks_for_token: bool = True,
) -> tuple[Settings, Session]:
    """Merge the four layers into the :class:`Settings`, and start the run's :class:`Session`
    with what they said of the token and of read-only. ``flags`` holds only options the user
    actually gave.

    The token: the first of :data:`TOKEN_ENV_VARS` set, else the config file's ``token``;
    none at all when read-only. A write URL, repository or token given (by a flag, the
    environment or the config file) with no read URL is a :class:`ConfigError`: roost would
    otherwise post to the demo network while the user meant their deployment. ``demo``: the demo network was asked for (`roost demo`),
    and such settings are set aside. ``looks_for_token``: False where no token is ever read (a
    `roost serve-ssh` server and its sessions): a configured token then points roost nowhere.

    ``required``: ``path`` was named by the user (``--config``), so a missing file is an error;
    so is a missing ``ROOST_CONFIG``. Every wrong setting raises :class:`ConfigError` whose
    message names the file (and profile), the environment variable or the option.
    """
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    env = os.environ if env is None else env
    if path is None and env.get("ROOST_CONFIG"):
        path, required = Path(env["ROOST_CONFIG"]), True
    path = path or config_path(env)
    document = _read_config(path, required)

    values: dict[str, Any] = {}
    sources: dict[str, str] = {}

    def layer(mapping: Mapping[str, Any], origin: str | Mapping[str, str]) -> None:
        for key, raw in mapping.items():
            if key in _KEYS:
                where = origin if isinstance(origin, str) else origin[key]
                value = _coerce(key, raw, where)
                values[key] = {**values.get(key, {}), **value} if key in _MERGED else value
                sources[key] = where

    top = {k: v for k, v in document.items() if k not in ("profiles", "profile")}
    if unknown := set(top) - _KEYS:
        raise ConfigError(f"{path}: {_unknown_settings(unknown)}")
    layer(top, str(path))

    profiles = document.get("profiles", {})
    if not isinstance(profiles, dict):
        raise ConfigError(f"{path}: [profiles] must be a table of named profiles")
    profile = flags.get("profile") or env.get("ROOST_PROFILE") or document.get("profile")
    if profile is not None and not isinstance(profile, str):
        raise ConfigError(f"{path}: profile must be the name of a profile, a string")
    if profile:
        if profile not in profiles:
            known = ", ".join(sorted(map(str, profiles))) or "none defined"
            guess = did_you_mean(profile, map(str, profiles))
            raise ConfigError(
                f"profile {_shown(profile)} is not in {path}"
                + (f"; {guess}" if guess else "")
                + f" (profiles: {known})"
            )
        chosen = profiles[profile]
        where = f"{path} [profiles.{profile}]"
        if not isinstance(chosen, dict):
            raise ConfigError(f"{where}: must be a table of settings")
        if unknown := set(chosen) - _KEYS:
            raise ConfigError(f"{where}: {_unknown_settings(unknown)}")
        layer(chosen, where)

    layer(
        {key: env[var] for key, var in ENV_VARS.items() if env.get(var)},
        {key: f"environment {var}" for key, var in ENV_VARS.items()},
    )
    layer(
        {k: v for k, v in flags.items() if k in _KEYS},
        {key: "--" + key.replace("_", "-") for key in _KEYS},
    )
    token: Secret | None = values.pop("token", None)  # the session's, never a setting
    token_origin = sources.pop("token", None)
    if values.get("readonly"):  # read-only: no token is looked for, the config's is set aside
        token = token_origin = None
    elif token_var := next((var for var in TOKEN_ENV_VARS if env.get(var)), None):
        token, token_origin = Secret(env[token_var]), token_var  # flags carry no token
    explicit = [sources[key] for key in ("write_url", "repo") if values.get(key)]
    if token is None or token_origin is None:
        token = token_origin = None  # an empty token in the file is none
    elif looks_for_token and token_origin not in AMBIENT_TOKEN_VARS:
        explicit.append(
            token_origin if token_origin in TOKEN_ENV_VARS else f"the token in {token_origin}"
        )
    if values.get("read_url") and not values.get("write_url"):
        values["write_url"] = DEFAULT_WRITE_URL
    settings = Settings(**values, given=dict(sources), profile=profile, config_file=path)
    session = msgspec.structs.replace(
        session_of(settings),
        token=token,
        token_source=token_origin and _token_source(token_origin),
        write_without_read=() if settings.read_url else tuple(explicit),
    )
    if session.write_without_read and not demo:
        raise ConfigError(no_read_url_message(session.write_without_read))
    return settings, session


def _token_source(origin: str) -> str:
    """A token's source as the session names it: a variable's name, or ``"config"``."""
    return origin if origin in TOKEN_ENV_VARS else "config"


def _unknown_settings(unknown: set[str]) -> str:
    """``unknown setting(s) reed_url (did you mean 'read_url'?)``."""
    names = []
    for name in sorted(map(str, unknown)):
        guess = did_you_mean(name, _KEYS)
        names.append(f"{name} ({guess})" if guess else name)
    return f"unknown setting(s) {', '.join(names)}"


def no_read_url_message(given: tuple[str, ...]) -> str:
    """Why write-side settings without a read URL are refused, naming where they came from."""
    named = ", ".join(given)
    return (
        f"{named} {'is' if len(given) == 1 else 'are'} set but no read URL is, so roost would "
        "act on its demo network instead of your deployment: set --read-url (or "
        "ROOST_READ_URL, or read_url in the config) to the deployment's read URL, or run "
        "`roost demo` for the demo network"
    )
