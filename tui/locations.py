"""Where roost keeps its files on this machine: the one module that asks ``platformdirs``.

* the config file: ``$XDG_CONFIG_HOME/roost/config.toml`` (``~/.config/roost/config.toml``);
* the disk cache of state files, boot records and eggs: the platform's user cache dir
  (``$XDG_CACHE_HOME/roost``), one folder per service under it;
* the outbox of actions: ``$XDG_DATA_HOME/roost/outbox`` (the platform's user data dir), one
  folder per service under it; the demo world beside it, in ``$XDG_DATA_HOME/roost/demo``;
* what this person has read of each service's inbox: ``$XDG_DATA_HOME/roost/read``, one file
  per service;
* what the dashboard remembers (theme, interval, sorts, last tab):
  ``$XDG_STATE_HOME/roost/preferences.json``;
* what `roost serve-ssh` keeps (its host key): ``$XDG_STATE_HOME/roost/ssh`` (the platform's
  user state dir).

``env`` (tests give their own) defaults to the process environment. No Textual import.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

__all__ = [
    "cache_root",
    "config_path",
    "data_root",
    "outbox_root",
    "read_state_root",
    "ssh_state_dir",
    "state_root",
]

_APP = "roost"


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """The config file (it may not exist)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME")
    root = Path(base) if base else Path(platformdirs.user_config_dir(_APP, appauthor=False)).parent
    return root / _APP / "config.toml"


def cache_root() -> Path:
    """The folder the disk caches live under (honours ``XDG_CACHE_HOME``)."""
    return Path(platformdirs.user_cache_dir(_APP, appauthor=False))


def data_root(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/roost`` (or the platform's user data dir): what roost keeps."""
    env = os.environ if env is None else env
    base = env.get("XDG_DATA_HOME")
    return Path(base) / _APP if base else Path(platformdirs.user_data_dir(_APP, False))


def outbox_root(env: Mapping[str, str] | None = None) -> Path:
    """The folder the outboxes live under."""
    return data_root(env) / "outbox"


def read_state_root(env: Mapping[str, str] | None = None) -> Path:
    """The folder of the inboxes' read markers (one file per service)."""
    return data_root(env) / "read"


def state_root(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/roost`` (or the platform's user state dir)."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME")
    return Path(base) / _APP if base else Path(platformdirs.user_state_dir(_APP, False))


def ssh_state_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where `roost serve-ssh` keeps its state (its host key)."""
    return state_root(env) / "ssh"
