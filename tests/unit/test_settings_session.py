"""Settings and session apart: what a person configures is a frozen ``Settings`` layered
defaults < config file < profile < environment < flags; what a run learns (the token and its
source, read-only's reason, the SSH role, a usage error held back) is a ``Session`` that never
shows the token."""

from __future__ import annotations

import itertools
from pathlib import Path

import msgspec
import pytest

from tui.config import (
    ENV_VARS,
    TOKEN_ENV_VARS,
    ConfigError,
    Secret,
    Settings,
    load,
    load_settings,
    session_of,
)
from tui.service import Service, connect
from tui.session import Session

#: What a run learns: none of it is a setting, and no config file, variable or flag sets it.
RUN_LEARNED = {"token", "token_source", "ssh_role", "readonly_source", "write_without_read"}
TOKEN = "ghp_" + "k3y" * 12


# --------------------------------------------------------------------------- the two shapes


def test_settings_are_frozen_and_a_change_is_a_new_value():
    settings = Settings(read_url="https://raw.x.test", agent="zion-coder-03")
    for name, value in (("read_url", "https://other.test"), ("agent", "a"), ("readonly", True)):
        with pytest.raises(AttributeError):
            setattr(settings, name, value)
    changed = msgspec.structs.replace(settings, agent="other")
    assert (settings.agent, changed.agent) == ("zion-coder-03", "other")
    with pytest.raises(AttributeError):
        Session().ssh_role = "user"


def test_settings_hold_nothing_a_run_learns():
    assert not RUN_LEARNED & set(Settings.__struct_fields__)
    assert set(Session.__struct_fields__) == RUN_LEARNED
    # every variable and flag name is a setting's, and none of them names a learned thing
    assert set(ENV_VARS) <= set(Settings.__struct_fields__)


@pytest.mark.parametrize("name", sorted(RUN_LEARNED - {"token"}))
def test_a_config_file_cannot_set_what_a_run_learns(tmp_path, name):
    path = tmp_path / "config.toml"
    path.write_text(f'{name} = "x"\n')
    with pytest.raises(ConfigError, match=f"unknown setting.*{name}"):
        load({}, env={}, path=path)


def test_a_sessions_repr_never_shows_the_token(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(f'read_url = "https://raw.x.test"\ntoken = "{TOKEN}"\n')
    from_file = load({}, env={}, path=path)
    from_env = load({}, env={"ROOST_TOKEN": TOKEN}, path=path)
    made = Session(token=Secret(TOKEN), token_source="config", ssh_role="user")
    demo = connect(Settings(), use_cache=False).session
    for session in (from_file[1], from_env[1], made, msgspec.structs.replace(made, ssh_role=None)):
        assert session.token is not None and session.token.reveal() == TOKEN
        for text in (repr(session), str(session), f"{session}", f"{session!r}", repr([session])):
            assert TOKEN not in text and "Secret('********')" in text
    assert demo.token is not None and demo.token.reveal() not in repr(demo)
    for text in (repr(from_file), repr(from_env)):  # the pair load() returns, printed whole
        assert TOKEN not in text


def test_a_session_takes_a_token_only_as_a_secret():
    with pytest.raises(TypeError, match="Secret"):
        Session(token=TOKEN)
    assert Session(token=None).token is None


def test_the_session_settings_imply_and_the_one_a_service_keeps():
    assert session_of(Settings()) == Session()
    said = Settings(readonly=True, given={"readonly": "environment ROOST_READONLY"})
    assert session_of(said).readonly_source == "environment ROOST_READONLY"
    assert session_of(Settings(readonly=True)).readonly_source == "--readonly"
    # settings that say read-only make the service's run read-only, whatever session came
    service = Service(said, store=None, session=Session(token=Secret(TOKEN)))
    assert service.session.readonly and service.session.readonly_source == said.given["readonly"]
    assert not Service(Settings(), store=None).session.readonly


# --------------------------------------------------------------------------- precedence

#: setting -> (top level of the file, the profile, the environment, a flag, as each is written;
#: the value each gives). The flag is what argparse hands over (a float for --interval).
LAYERED = {
    "read_url": (
        ('"https://file.test/a"', '"https://profile.test/a"', "https://env.test/a"),
        "https://flag.test/a",
        ("https://file.test/a", "https://profile.test/a", "https://env.test/a"),
    ),
    "repo": (('"file/r"', '"profile/r"', "env/r"), "flag/r", ("file/r", "profile/r", "env/r")),
    "interval": (("11", "12.5", "13"), 14.0, (11.0, 12.5, 13.0)),
    "agent": (('"file-a"', '"profile-a"', "env-a"), "flag-a", ("file-a", "profile-a", "env-a")),
    "readonly": (("true", "false", "1"), True, (True, False, True)),
    "cache_dir": (
        ('"/file/c"', '"/profile/c"', "/env/c"),
        "/flag/c",
        (Path("/file/c"), Path("/profile/c"), Path("/env/c")),
    ),
    "theme": (('"nord"', '"gruvbox"', "dracula"), None, ("nord", "gruvbox", "dracula")),
}
FLAG_VALUE = {"read_url": "https://flag.test/a", "cache_dir": Path("/flag/c")}
LAYERS = ("file", "profile", "environment", "flag")


def _cases():
    for key, (_, flag, _) in LAYERED.items():
        for present in itertools.product((False, True), repeat=4):
            if present[3] and flag is None:
                continue  # theme is not a flag
            yield pytest.param(key, present, id=f"{key}-{''.join('01'[p] for p in present)}")


@pytest.mark.parametrize(("key", "present"), list(_cases()))
def test_precedence_table(tmp_path, key, present):
    """Each setting, given in any subset of the four layers: the last layer given wins, and
    ``given`` names it; given nowhere, the default (and ``given`` does not name it)."""
    (file_text, profile_text, env_text), flag, values = LAYERED[key]
    top = ['read_url = "https://base.test/r"'] if key != "read_url" else []
    profile = ["[profiles.p]"]
    if present[0]:
        top.append(f"{key} = {file_text}")
    if present[1]:
        profile.append(f"{key} = {profile_text}")
    path = tmp_path / "config.toml"
    path.write_text("\n".join([*top, 'profile = "p"', *profile]) + "\n")
    env = {ENV_VARS[key]: env_text} if present[2] else {}
    flags = {key: flag} if present[3] else {}
    settings, _ = load(flags, env=env, path=path)
    origins = (str(path), f"{path} [profiles.p]", f"environment {ENV_VARS[key]}")
    if present[3]:
        expected = FLAG_VALUE.get(key, flag)
        origin: str | None = "--" + key.replace("_", "-")
    elif any(present[:3]):
        last = max(i for i in range(3) if present[i])
        expected, origin = values[last], origins[last]
    else:
        expected, origin = getattr(Settings(), key), None
    assert getattr(settings, key) == expected
    assert settings.given.get(key) == origin


@pytest.mark.parametrize(
    ("flag", "env", "file", "chosen"),
    [
        (None, None, None, None),
        (None, None, "a", "a"),
        (None, "b", "a", "b"),
        ("c", "b", "a", "c"),
        ("c", None, None, "c"),
    ],
)
def test_the_profile_is_chosen_by_flag_then_environment_then_file(
    tmp_path, flag, env, file, chosen
):
    path = tmp_path / "config.toml"
    head = f'profile = "{file}"\n' if file else ""
    path.write_text(head + "".join(f'[profiles.{n}]\nagent = "agent-{n}"\n' for n in "abc"))
    settings = load_settings(
        {"profile": flag} if flag else {}, env={"ROOST_PROFILE": env} if env else {}, path=path
    )
    assert (settings.profile, settings.agent) == (chosen, chosen and f"agent-{chosen}")


def test_the_config_file_is_the_option_then_roost_config_then_xdg(tmp_path):
    for name in ("option", "variable", "xdg"):
        folder = tmp_path / name / ("roost" if name == "xdg" else "")
        folder.mkdir(parents=True)
        (folder / "config.toml").write_text(f'agent = "from-{name}"\n')
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert load_settings({}, env=env).agent == "from-xdg"
    env["ROOST_CONFIG"] = str(tmp_path / "variable" / "config.toml")
    assert load_settings({}, env=env).agent == "from-variable"
    option = tmp_path / "option" / "config.toml"
    assert load_settings({}, env=env, path=option, required=True).agent == "from-option"
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings({}, env={"ROOST_CONFIG": str(tmp_path / "absent.toml")})


@pytest.mark.parametrize("n", range(len(TOKEN_ENV_VARS) + 1))
def test_token_precedence_the_variables_in_order_then_the_file(tmp_path, n):
    """The first of the token variables set wins over the later ones and over the file's."""
    path = tmp_path / "config.toml"
    path.write_text('read_url = "https://raw.x.test"\ntoken = "from-file"\n')
    env = {var: f"from-{var}" for var in TOKEN_ENV_VARS[n:]}
    settings, session = load({}, env=env, path=path)
    winner = TOKEN_ENV_VARS[n] if n < len(TOKEN_ENV_VARS) else "config"
    assert session.token_source == winner
    assert session.token == Secret(f"from-{winner}" if env else "from-file")
    assert "token" not in settings.given  # the token is no setting
    read_only, quiet = load({"readonly": True}, env=env, path=path)
    assert (quiet.token, quiet.token_source, quiet.readonly_source) == (None, None, "--readonly")
    assert read_only.readonly and "from-" not in repr(quiet)


def test_a_usage_error_is_held_by_the_session_until_the_demo_sets_it_aside(tmp_path):
    env = {"ROOST_REPO": "o/r", "ROOST_TOKEN": "t"}
    with pytest.raises(ConfigError, match="environment ROOST_REPO, ROOST_TOKEN are set but"):
        load({}, env=env, path=tmp_path / "none.toml")
    settings, session = load({}, env=env, path=tmp_path / "none.toml", demo=True)
    assert session.write_without_read == ("environment ROOST_REPO", "ROOST_TOKEN")
    assert settings.repo == "o/r" and settings.as_demo().repo is None
    assert session.as_demo().write_without_read == () and session.as_demo().token == session.token
