"""[keymap], theme and [themes] in the config, checked against roost's own bindings and
Textual's themes; the preferences file that remembers the rest."""

from __future__ import annotations

import json

import pytest

from tui.config import ConfigError, load_settings
from tui.preferences import Preferences, preferences_path, reset_preferences
from tui.ssh.mode import GUEST, KEYED
from tui.ui.keymap import binding_catalog, checked_keymap, key_label, normal_key, rebound
from tui.ui.themes import checked_themes


def settings(tmp_path, text: str, **flags):
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_settings(flags, env={}, path=path)


# ---------------------------------------------------------------------- reading the config


def test_profile_keymap_adds_to_and_overrides_the_top_level(tmp_path):
    loaded = settings(
        tmp_path,
        """
[keymap]
"app.refresh" = "f5"
"app.help" = "f1"
[profiles.work]
read_url = "https://example.org/r"
[profiles.work.keymap]
"app.refresh" = ["f6", "r"]
""",
        profile="work",
    )
    assert loaded.keymap["app.refresh"].keys == ("f6", "r")
    assert loaded.keymap["app.refresh"].origin.endswith("[profiles.work]")
    assert loaded.keymap["app.help"].keys == ("f1",)
    assert checked_keymap(loaded.keymap) == {"app.refresh": "f6,r", "app.help": "f1"}


def test_several_keys_for_one_id_with_characters_named_as_textual_names_them(tmp_path):
    loaded = settings(tmp_path, '[keymap]\n"virtual_table.cursor_down" = "j, down ,ctrl+n"\n')
    assert checked_keymap(loaded.keymap) == {"virtual_table.cursor_down": "j,down,ctrl+n"}
    loaded = settings(tmp_path, '[keymap]\n"app.help" = "?,f1"\n')
    assert checked_keymap(loaded.keymap) == {"app.help": "question_mark,f1"}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('"app.refersh" = "f5"', ["app.refersh", "did you mean 'app.refresh'?"]),
        ('"app.refresh" = "ctrl+bogus"', ["app.refresh", "'ctrl+bogus' is not a key"]),
        ('"app.refresh" = "hyperdrive+x"', ["'hyperdrive+x' is not a key"]),
        ('"app.refresh" = "f5,,r"', ["an empty key"]),
        ('"app.refresh" = 5', ["keys must be a string"]),
        # two ids on one key in the same place: t is already Activity's "next type"
        ('"screen.copy" = "t"', ["screen.copy", "t is also activity.type's key", "Activity tab"]),
        ('"table.sort" = "/"', ["table.sort", "slash is also table.filter's key"]),
    ],
)
def test_a_wrong_keymap_is_one_line_naming_the_file_profile_and_id(tmp_path, text, words):
    with pytest.raises(ConfigError) as caught:  # its shape when read, the rest when checked
        loaded = settings(
            tmp_path,
            f'[profiles.p]\nread_url = "https://example.org/r"\n[profiles.p.keymap]\n{text}\n',
            profile="p",
        )
        checked_keymap(loaded.keymap)
    message = caught.value.describe()
    assert "\n" not in message
    assert f"{tmp_path / 'config.toml'} [profiles.p] [keymap]" in message
    for word in words:
        assert word in message


def test_a_key_moved_between_ids_or_given_to_the_same_action_is_no_clash(tmp_path):
    # s and slash swapped in one place; down gets vim's j, which does the same action
    loaded = settings(
        tmp_path,
        '[keymap]\n"table.sort" = "/"\n"table.filter" = "s"\n'
        '"virtual_table.cursor_down" = "j,down"\n',
    )
    assert checked_keymap(loaded.keymap)["table.sort"] == "slash"


def test_a_bad_keymap_shape_is_refused_when_the_config_is_read(tmp_path):
    with pytest.raises(ConfigError, match=r"\[keymap\] must be a table"):
        settings(tmp_path, 'keymap = "f5"\n')


def test_the_catalog_has_every_screen_and_widget_binding():
    catalog = binding_catalog()
    assert catalog["app.refresh"].keys == ("r",)
    assert catalog["app.refresh"].places == ("everywhere",)
    assert catalog["table.sort"].places == ("every table tab",)
    assert catalog["virtual_table.cursor_down"].places == ("tables",)
    assert "thread.reply" in catalog and "form.submit" in catalog and "sort.next" in catalog
    assert all(info.description for info in catalog.values())


def test_keys_are_normalised_and_shown_as_typed():
    assert normal_key("?") == "question_mark"
    assert normal_key("ctrl+n") == "ctrl+n"
    assert normal_key("F5") is None and normal_key("ctrl+") is None and normal_key("a b") is None
    assert key_label("question_mark") == "?" and key_label("ctrl+slash") == "ctrl+/"


def test_rebound_gives_the_first_binding_of_an_id_the_chosen_keys():
    from textual.binding import Binding

    bindings = [Binding("r", "refresh", "Refresh", id="app.refresh"), Binding("q", "quit", "Quit")]
    keys = [b.key for b in rebound(bindings, {"app.refresh": "f5,ctrl+r"})]
    assert keys == ["f5", "ctrl+r", "q"]


# ---------------------------------------------------------------------- themes


def test_textual_themes_by_name_and_ones_own(tmp_path):
    loaded = settings(
        tmp_path,
        'theme = "roost-dusk"\n[themes.roost-dusk]\nprimary = "#88c0d0"\n'
        'background = "#1b1d23"\ndark = true\n',
    )
    own, name = checked_themes(loaded)
    assert name == "roost-dusk" and own[0].primary == "#88c0d0"
    assert checked_themes(settings(tmp_path, 'theme = "nord"\n'))[1] == "nord"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('theme = "nrod"', ["theme 'nrod' is not a theme", "did you mean 'nord'?"]),
        ('[themes.x]\nprimary = "#zzz"', ["[themes.x]", "primary", "is not a colour"]),
        ('[themes.x]\naccent = "red"', ["needs at least primary"]),
        ('[themes.x]\nprimray = "red"', ["unknown 'primray'", "did you mean 'primary'?"]),
    ],
)
def test_a_wrong_theme_is_a_settings_error(tmp_path, text, words):
    loaded = settings(tmp_path, text + "\n")
    with pytest.raises(ConfigError) as caught:
        checked_themes(loaded)
    message = caught.value.describe()
    assert str(tmp_path / "config.toml") in message
    for word in words:
        assert word in message


def test_the_theme_may_come_from_the_environment(tmp_path):
    path = tmp_path / "none.toml"
    loaded = load_settings({}, env={"ROOST_THEME": "gruvbox"}, path=path)
    assert loaded.theme == "gruvbox" and loaded.given["theme"] == "environment ROOST_THEME"


# ---------------------------------------------------------------------- preferences


def test_preferences_are_kept_per_profile_and_written_atomically(tmp_path):
    path = tmp_path / "state" / "preferences.json"
    work = Preferences(path, "work")
    work.remember(theme="nord", interval=30.0, tab="posts")
    work.remember_sort("agents", "karma", True)
    Preferences(path, None).remember(theme="dracula")
    again = Preferences(path, "work").remembered
    assert (again.theme, again.interval, again.tab) == ("nord", 30.0, "posts")
    assert again.sorts == {"agents": ("karma", True)}
    assert Preferences(path, "").remembered.theme == "dracula"
    assert not list(path.parent.glob(".*.tmp"))  # no temporary file left
    assert json.loads(path.read_text())["format"] == "roost-preferences/1"


def test_hidden_columns_are_kept_per_table_and_all_shown_forgets_them(tmp_path):
    path = tmp_path / "preferences.json"
    kept = Preferences(path, "work")
    kept.remember_hidden("agents", ("name", "karma"))
    kept.remember_hidden("trending:trending-channels", ("posts",))
    assert Preferences(path, "work").remembered.hidden == {
        "agents": ("name", "karma"),
        "trending:trending-channels": ("posts",),
    }
    kept.remember_hidden("agents", ())  # every column shown again
    assert Preferences(path, "work").remembered.hidden == {"trending:trending-channels": ("posts",)}
    assert Preferences(path, None).remembered.hidden == {}  # per profile


@pytest.mark.parametrize(
    "damage",
    [
        b"{not json",
        b'{"format": "roost-preferences/1", "profiles": {"": {"hidden": {"agents": []}}}}',
        b'{"format": "roost-preferences/1", "profiles": {"": {"hidden": {"agents": ["a b"]}}}}',
        b'{"format": "roost-preferences/1", "profiles": {"": {"interval": -4}}}',
        b'{"format": "roost-preferences/1", "profiles": {"": {"theme": "\\u001b[2J"}}}',
        b'{"format": "something-else"}',
        b"\xff\xfe",
    ],
)
def test_a_damaged_file_is_set_aside_and_replaced_with_a_note_never_an_error(tmp_path, damage):
    path = tmp_path / "preferences.json"
    path.write_bytes(damage)
    kept = Preferences(path, None)
    assert kept.remembered.theme is None
    assert kept.note and "set aside" in kept.note and str(path) in kept.note
    assert (tmp_path / "preferences.json.damaged").read_bytes() == damage
    assert json.loads(path.read_text())["profiles"] == {}  # replaced by a good one
    kept.remember(theme="nord")
    assert Preferences(path, None).remembered.theme == "nord"


def test_reset_forgets_them(tmp_path):
    env = {"XDG_STATE_HOME": str(tmp_path)}
    path = preferences_path(None, env)
    assert path == tmp_path / "roost" / "preferences.json"
    Preferences(path, None).remember(tab="seeds")
    assert reset_preferences(env) == path and not path.exists()
    assert reset_preferences(env) is None


def test_over_ssh_a_guest_remembers_nothing_and_a_keyed_user_in_their_own_folder(tmp_path):
    home = tmp_path / "users" / "abc"
    home.mkdir(parents=True, mode=0o700)
    assert preferences_path(GUEST, {"HOME": str(tmp_path / "guest")}) is None
    path = preferences_path(KEYED, {"HOME": str(home), "XDG_STATE_HOME": str(tmp_path / "s")})
    assert path == home / "state" / "preferences.json"
    assert (home / "state").stat().st_mode & 0o077 == 0
    assert preferences_path(KEYED, {}) is None


def test_the_examples_in_docs_keys_md_are_accepted(tmp_path):
    import re
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs" / "keys.md"
    blocks = re.findall(r"```toml\n(.*?)```", docs.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 4
    for block in blocks:
        loaded = settings(tmp_path, block)
        checked_keymap(loaded.keymap)
        checked_themes(loaded)
