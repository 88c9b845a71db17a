"""`--env NAME=URL` and `[environments.NAME]`: names, URLs, and tokens from the environment
or from a real token command (run through /bin/sh); every problem is one line naming the
environment, never the token."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from t3tui.client.environments import (
    parse_env_flag,
    resolve_environments,
    split_qualified,
    token_variable,
)
from t3tui.client.secret import TargetError

SECRET = "tok-" + "s3cr3t" * 4


def config(tmp_path: Path, body: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(body)
    return str(path)


def failure(flags: list[str] | None, cfg: str | None, env: dict[str, str]) -> str:
    with pytest.raises(TargetError) as caught:
        resolve_environments(flags, cfg, env)
    message = str(caught.value)
    assert "\n" not in message and SECRET not in message
    return message


def test_flags_with_tokens_from_the_environment() -> None:
    env = {"T3TUI_TOKEN_LAPTOP": SECRET, "T3TUI_TOKEN_CI_RUNNER": "other", "HOME": "/nonexistent"}
    found = resolve_environments(["laptop=127.0.0.1:3773", "ci-runner=https://ci:1/ws"], None, env)
    assert [(e.name, e.target.base_url) for e in found] == [
        ("laptop", "http://127.0.0.1:3773"), ("ci-runner", "https://ci:1")]
    assert found[0].target.token.reveal() == SECRET and SECRET not in repr(found)
    assert token_variable("ci-runner") == "T3TUI_TOKEN_CI_RUNNER"


def test_config_token_command_and_env_variable_precedence(tmp_path: Path) -> None:
    cfg = config(tmp_path, f'''
[environments.laptop]
url = "http://127.0.0.1:3773"
token_command = "printf '%s\\\\n' {SECRET}"
[environments.devbox]
url = "http://127.0.0.1:4000"
token_command = ["{sys.executable}", "-c", "print('from-argv')"]
''')
    found = resolve_environments(None, cfg, {"T3TUI_TOKEN_DEVBOX": "from-env"})
    assert [e.name for e in found] == ["laptop", "devbox"]
    assert found[0].target.token.reveal() == SECRET  # stdout, stripped
    assert found[1].target.token.reveal() == "from-env"  # the variable wins
    # --env NAME alone takes the configured URL and token command
    [only] = resolve_environments(["devbox"], cfg, {})
    assert only.target.base_url == "http://127.0.0.1:4000"
    assert only.target.token.reveal() == "from-argv"
    # --env given: the config's other environments are not added
    assert [e.name for e in resolve_environments(["laptop"], cfg, {})] == ["laptop"]


@pytest.mark.parametrize(("command", "said"), [
    ('"echo oops >&2; exit 3"', "environment devbox: token_command failed (exit 3): oops"),
    ('"true"', "environment devbox: token_command printed nothing (expected the token on stdout)"),
    (f'"printf \'{SECRET}\'; exit 1"', "environment devbox: token_command failed (exit 1)"),
    ('["/no/such/helper"]', "environment devbox: token_command cannot run: '/no/such/helper' not found"),
])
def test_a_failing_token_command_is_one_line_naming_the_environment(
        tmp_path: Path, command: str, said: str) -> None:
    cfg = config(tmp_path, f'[environments.devbox]\nurl = "http://h:1"\ntoken_command = {command}\n')
    assert failure(None, cfg, {}) == said


def test_usage_errors_name_the_environment(tmp_path: Path) -> None:
    assert "no token (set T3TUI_TOKEN_LAPTOP" in failure(["laptop=h:1"], None, {"HOME": str(tmp_path)})
    assert "given twice" in failure(["a=h:1", "a=h:2"], None, {"T3TUI_TOKEN_A": "t"})
    assert "must be letters" in failure(["no good=h:1"], None, {})
    assert "no URL after '='" in failure(["a="], None, {})
    assert "no [environments.b]" in failure(["b"], None, {"HOME": str(tmp_path)})
    assert failure(["a=ftp://x"], None, {"T3TUI_TOKEN_A": "t"}).startswith(
        "environment a: not a server URL")
    cfg = config(tmp_path, '[environments.a]\nurl = "h:1"\npassword = "x"\n')
    assert "unknown key(s) password" in failure(None, cfg, {})
    assert "no such file" in failure(["a=h:1"], str(tmp_path / "missing.toml"), {})


def test_no_flags_and_no_config_means_no_environments(tmp_path: Path) -> None:
    assert resolve_environments(None, None, {"HOME": str(tmp_path)}) == []
    cfg = config(tmp_path, '[environments.a]\nurl = "h:1"\ntoken_command = "echo t"\n')
    assert resolve_environments(None, cfg, {}, use_config_alone=False) == []


def test_qualified_thread_names() -> None:
    names = ["laptop", "devbox"]
    assert parse_env_flag("laptop=http://h:1") == ("laptop", "http://h:1")
    assert split_qualified("devbox:thread-1", names) == ("devbox", "thread-1")
    assert split_qualified("thread:delegated-task:x", names) == (None, "thread:delegated-task:x")
    assert split_qualified("laptop:thread:a:b", names) == ("laptop", "thread:a:b")
