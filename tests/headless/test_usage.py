"""Headless CLI usage errors: missing server, bad flags, unreachable server, a closed pipe.
No tracebacks."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import time

import pytest

from t3tui.backend.testing import RunningBackend
from t3tui.cli import build_parser, main
from t3tui.client.errors import ClientError
from t3tui.headless.common import run_async

SUBCOMMANDS = (["status"], ["watch"], ["checkin", "t"], ["settle", "t"], ["interrupt", "t"])


@pytest.fixture(autouse=True)
def no_server_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("T3TUI_URL", "T3CODE_URL", "T3TUI_TOKEN", "T3CODE_TOKEN"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("argv", SUBCOMMANDS)
def test_without_a_server_each_command_says_so_and_exits_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("t3tui: no server given")
    assert "--url" in err and "T3TUI_TOKEN" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_server_flags_work_before_and_after_the_subcommand() -> None:
    parser = build_parser()
    before = parser.parse_args(["--url", "h:1", "--token", "x", "status"])
    after = parser.parse_args(["status", "--url", "h:1", "--token", "x"])
    assert (before.url, before.token) == (after.url, after.token) == ("h:1", "x")


def test_a_bad_timeout_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["checkin", "t", "--timeout", "soon", "--url", "h:1", "--token", "x"])
    assert info.value.code == 2
    assert "not a number of seconds" in capsys.readouterr().err


def test_an_unreachable_server_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    argv = ["status", "--url", f"127.0.0.1:{port}", "--token", "secret-xyz",
            "--connect-timeout", "0.5"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("t3tui: no connection within 0.5s: cannot reach")
    assert "secret-xyz" not in err and "Traceback" not in err


async def test_a_reader_that_left_the_pipe_gets_no_traceback(backend: RunningBackend) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # `t3tui ... | head` once head has exited
    env = dict(os.environ, T3TUI_URL=backend.url, T3TUI_TOKEN=backend.token)
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "t3tui", "status", "--json",
            stdout=write_end, stderr=asyncio.subprocess.PIPE, env=env,
        )
    finally:
        os.close(write_end)
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert (proc.returncode, err.decode()) == (141, "")



def test_every_subcommand_registers() -> None:
    parser = build_parser()
    for argv in (["serve"], *SUBCOMMANDS):
        assert parser.parse_args(argv).command == argv[0]


def test_an_error_with_server_text_is_still_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    async def fails() -> int:
        raise ClientError('server defect: Expected string, got 42\n  at ["threadId"]\x1b[2J')

    assert run_async(fails) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "\x1b" not in err
    assert err.startswith("t3tui: server defect: Expected string, got 42")


@pytest.mark.parametrize("flag", ["--text", "--expect"])
def test_a_blank_checkin_text_or_expect_is_a_usage_error(
    flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["checkin", "t", flag, " ", "--url", "h:1", "--token", "x"])
    assert info.value.code == 2
    assert f"argument {flag}: must not be empty" in capsys.readouterr().err


def free_port() -> int:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("argv", [["status"], ["watch"], ["settle", "t"]])
def test_a_refused_port_is_reported_within_two_seconds_not_after_the_connect_timeout(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    code = main([*argv, "--url", f"127.0.0.1:{free_port()}", "--token", "secret-xyz"])
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 2 and elapsed < 5, (code, elapsed)  # the default --connect-timeout is 15
    assert err.startswith("t3tui: cannot reach http://127.0.0.1:") and "connection refused" in err
    assert len(err.splitlines()) == 1 and "secret-xyz" not in err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "Infinity", "0", "-1", "1e300"])
@pytest.mark.parametrize("argv", [
    ["status", "--connect-timeout"], ["watch", "--duration"], ["watch", "--connect-timeout"],
    ["checkin", "t", "--timeout"], ["settle", "t", "--timeout"], ["interrupt", "t", "--timeout"],
    ["--checkin-timeout"],
])
def test_durations_must_be_finite_and_positive_in_every_option(
    argv: list[str], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    *head, flag = argv
    full = [*head, f"{flag}={value}"]  # `=`: argparse reads a bare -inf as an option
    if head:
        full += ["--url", "h:1", "--token", "x"]
    try:
        code = main(full)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert "seconds" in err.strip().splitlines()[-1], err  # argparse: usage, then the error


@pytest.mark.parametrize("flag", [["--dry-run"], ["--policy", "p.toml"], ["--heartbeat", "5"]])
def test_a_policy_flag_without_act_is_a_usage_error_not_ignored(
    flag: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`watch --dry-run` without `--act` watched on and acted on nothing, saying nothing of
    it: a user who meant `--act --dry-run` (or whose unit lost `--act`) was not told."""
    assert main(["watch", *flag, "--url", "http://127.0.0.1:9", "--token", "x"]) == 2
    err = capsys.readouterr().err
    assert err == "t3tui: --dry-run, --policy and --heartbeat go with --act\n", err
