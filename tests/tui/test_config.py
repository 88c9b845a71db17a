"""Config: defaults < file < environment < flags; clear errors; never the user's real file."""

from __future__ import annotations

from pathlib import Path

import pytest

from t3tui.tui.app.config import ConfigError, TuiConfig, load_config


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_defaults_when_no_file(tmp_path: Path) -> None:
    cfg = load_config(env={"HOME": str(tmp_path)})
    assert cfg == TuiConfig()


def test_default_location_is_read(tmp_path: Path) -> None:
    (tmp_path / "t3tui").mkdir()
    (tmp_path / "t3tui" / "config.toml").write_text('[keys]\nsettle = "S"\n')
    cfg = load_config(env={"XDG_CONFIG_HOME": str(tmp_path)})
    assert cfg.keys == {"settle": "S"}


def test_override_order(tmp_path: Path) -> None:
    path = write(tmp_path, '[keys]\nsettle = "S"\ncheckin = "C"\n'
                          '[notifications]\nbell = true\n[checkin]\ntimeout = 30\n')
    env = {"T3TUI_KEYS": "checkin=x", "T3TUI_BELL": "0", "T3TUI_CHECKIN_TIMEOUT": "20"}
    cfg = load_config(path, env=env, flags={"keys": ["settle=ctrl+s"], "checkin_timeout": 5})
    assert cfg.keys == {"settle": "ctrl+s", "checkin": "x"}
    assert cfg.bell is False                 # env beat the file
    assert cfg.checkin_timeout_s == 5        # flag beat env and file
    assert load_config(path, env={}).checkin_timeout_s == 30


def test_env_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[ui]\ntheme = "nord"\n')
    assert load_config(env={"T3TUI_CONFIG": str(path)}).theme == "nord"


@pytest.mark.parametrize(("text", "message"), [
    ('[keys]\nsettel = "S"\n', "unknown action 'settel'"),
    ("[keys\n", "not valid TOML"),
    ('[colours]\nx = 1\n', "unknown section(s) colours"),
    ('[notifications]\nbell = "loud"\n', "expected true or false"),
    ('[notifications]\non = ["everything"]\n', "expected a list of"),
    ('[checkin]\ntimeout = -1\n', "must be between 0 and 86400"),
    ('[checkin]\ntimeot = 3\n', "unknown key(s) in [checkin]: timeot"),
])
def test_bad_files_say_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("(", r"\(")
                       .replace(")", r"\)")):
        load_config(write(tmp_path, text), env={})


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.toml", env={})


def test_bad_env_and_flags(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="T3TUI_KEYS: expected ID=KEY"):
        load_config(env={"HOME": str(tmp_path), "T3TUI_KEYS": "settle"})
    with pytest.raises(ConfigError, match="--key: unknown action 'fly'"):
        load_config(env={"HOME": str(tmp_path)}, flags={"keys": ["fly=f"]})


@pytest.mark.parametrize(("keys", "message"), [
    (["settle=q"], "'q' would run both settle and quit"),
    (["settle=x", "checkin=x"], "'x' would run both settle and checkin"),
    (["settle=S|j"], "'j' is taken by the tree"),
])
def test_a_key_given_to_two_actions_is_an_error(tmp_path: Path, keys: list[str],
                                                message: str) -> None:
    # `settle=q` used to take q from Quit without a word: the footer lost "q Quit".
    with pytest.raises(ConfigError, match=message):
        load_config(env={"HOME": str(tmp_path)}, flags={"keys": keys})


def test_swapping_two_keys_is_fine(tmp_path: Path) -> None:
    cfg = load_config(env={"HOME": str(tmp_path)}, flags={"keys": ["settle=c", "checkin=s"]})
    assert cfg.keys == {"settle": "c", "checkin": "s"}
