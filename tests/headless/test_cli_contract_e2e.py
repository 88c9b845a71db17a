"""Issue 21, item 8: the headless CLI keeps its documented contract, over real sockets against
the reference backend: exit codes (0 done, 1 refused or not confirmed, 2 error), `--version`,
a wrong URL path that fails at once, a forced stop from the CLI, short ids in what it prints,
and `serve --help` naming every bundled scenario."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

import t3tui
from t3tui.actions import FORCE_REASON
from t3tui.backend.scenarios import available
from t3tui.backend.testing import RunningBackend, running_backend, wait_until
from t3tui.cli import build_parser, main
from t3tui.model.labels import short_id
from tests.headless.cli import cli, server_args
from tests.headless.test_commands_e2e import active_run, launch

pytestmark = pytest.mark.e2e
README = Path(__file__).parents[2] / "README.md"


async def test_version_prints_the_package_version() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "t3tui", "--version",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert (proc.returncode, out.decode(), err.decode()) == (0, f"t3tui {t3tui.__version__}\n", "")


def test_serve_help_names_every_bundled_scenario(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as info:
        main(["serve", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    option = out[out.index("  --scenario NAME|PATH"):out.index("  --scenario-param")]
    words = " ".join(option.split())  # wrapped between words, never inside a name
    names = available()
    assert len(names) >= 8
    missing = [n for n in names if n not in words]
    assert not missing, (missing, option)


async def test_a_wrong_url_path_fails_at_once_with_the_404(backend: RunningBackend) -> None:
    started = time.monotonic()
    result = await cli("status", "--url", backend.url + "/not-t3", f"--token={backend.token}")
    elapsed = time.monotonic() - started
    assert result.code == 2, result
    assert elapsed < 5, elapsed  # the default --connect-timeout is 15 s: no retrying a 404
    assert result.err.startswith(f"t3tui: {backend.url}/not-t3 is not a T3 server")
    assert "HTTP 404" in result.err and len(result.err.splitlines()) == 1
    assert backend.token not in result.err


async def test_forward_dispose_and_acknowledge_refusals_exit_1(backend: RunningBackend) -> None:
    thread = await launch(backend, "Reply READY", title="Plain thread")
    await wait_until(lambda: backend.engine.shell_row(thread).status == "completed", timeout=10)
    args = server_args(backend)
    for command in ("forward", "dispose", "acknowledge"):
        refused = await cli(command, thread, "--yes", *args) if command == "forward" else \
            await cli(command, thread, *args)
        assert refused.code == 1, (command, refused)
        assert "is not a delegated child" in refused.err
    unknown = await cli("forward", "no-such-thread", "--yes", *args)
    assert unknown.code == 2  # not found is an error, not a refusal


async def test_the_tree_summary_and_an_ambiguous_title_print_short_ids() -> None:
    async with running_backend(scenario="duplicate-delegation") as backend:
        args = server_args(backend)
        doc = (await cli("status", "--json", *args)).json()
        twins = sorted(t["id"] for t in doc["threads"] if t["parentId"] == "thread-twins")
        result = await cli("settle", "Audit the repo", *args)
        assert result.code == 2, result
        for twin in twins:
            assert short_id(twin) in result.err and twin not in result.err, result.err
        assert short_id(twins[0]) in ("twin-a", "twin-b")


async def test_interrupt_force_detaches_a_run_whose_stop_never_lands() -> None:
    async with running_backend(scenario="stop-never-lands") as backend:
        args = server_args(backend)
        doc = (await cli("status", "--json", *args)).json()
        [child] = [t["id"] for t in doc["threads"] if t["parentId"] == "thread-stop-me"]
        assert active_run(backend, child)

        tree = await cli("interrupt", "thread-stop-me", "--tree", "--timeout", "1", *args)
        assert tree.code == 1, tree
        assert "still running: stop-me-child" in tree.out and child not in tree.out
        assert "t3tui interrupt stop-me-child --force" in tree.out
        assert active_run(backend, child)

        forced = await cli("interrupt", "stop-me-child", "--force", *args)
        assert forced.code == 0, forced
        assert forced.out.startswith("force-stopped: run "), forced.out
        assert active_run(backend, child) is None
        live = [e for e in backend.engine.projection(child).provider_sessions
                    if e.status not in ("stopped", "error")]
        assert live == []

        # what the app's forced stop sends: the server's log reads the same whoever forced it
        detached = [getattr(e.event.payload, "reason", None) for e in backend.engine.events_after(0)
                    if e.event.type == "provider-session.detached" and e.event.thread_id == child]
        assert FORCE_REASON in detached, detached

        again = await cli("interrupt", "stop-me-child", "--force", *args)
        assert again.code == 1 and again.out.startswith("nothing to interrupt"), again


def readme_exit_codes() -> dict[str, set[str]]:
    """Each command's exit codes as the README's command tables state them."""
    found: dict[str, set[str]] = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `t3tui "):
            continue
        cells = [c.strip() for c in line.replace("\\|", "/").strip("|").split("|")]
        codes = set(re.findall(r"\b\d+\b", cells[-1]))
        for command in re.findall(r"`t3tui (\w+)", cells[0]):
            if codes:  # `status --replay ...`: "as `status`"
                found.setdefault(command, set()).update(codes)
    return found


def help_exit_codes() -> dict[str, set[str]]:
    """Each subcommand's exit codes as its `--help` description states them."""
    parser = build_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    found = {}
    for name, sub in subparsers.choices.items():
        text = " ".join((sub.description or "").split())
        said = text[text.index("Exit "):] if "Exit " in text else ""
        found[name] = set(re.findall(r"\b\d+\b", said))
    return found


def readme_signal_codes() -> set[str]:
    """The exit codes the README's contract gives every headless command ended by a signal."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    start = text.index("Exit codes are one contract")
    start = text.index("Ctrl-C is ", start)
    sentence = text[start:text.index("convention)", start)].replace("128+N", "")
    return set(re.findall(r"\b\d+\b", sentence))


def test_every_commands_help_and_the_readme_state_the_same_exit_codes() -> None:
    readme, helps, signalled = readme_exit_codes(), help_exit_codes(), readme_signal_codes()
    assert {"status", "watch", "checkin", "settle", "interrupt", "forward", "dispose",
            "acknowledge", "record", "report"} <= set(readme)
    # what `run_async` and `main` return: 128+N, the shell's convention
    assert signalled == {str(128 + s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    for command, codes in readme.items():
        # a command's row, and the contract's codes for a signal, which every command shares
        assert helps[command] == codes | signalled, (command, helps[command], codes)
    # the headless commands share one contract: 2 is an error for every one of them
    assert all("2" in helps[c] for c in readme)


async def test_end_of_input_at_forwards_prompt_is_not_confirmed_not_a_traceback() -> None:
    async with running_backend(scenario="pending-delivery",
                               scenario_params={"step": 1}) as backend:
        primary, secondary = os.openpty()  # forward asks only on a terminal
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "t3tui", "forward", "wave-1", "--force",
                *server_args(backend), stdin=secondary, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE)
            os.write(primary, b"\x04")  # Ctrl-D: the terminal keeps it until the prompt reads
            out, err = await asyncio.wait_for(proc.communicate(), 30)
        finally:
            os.close(primary)
            os.close(secondary)
        assert "Traceback" not in err.decode() and "EOFError" not in err.decode(), err.decode()
        assert proc.returncode == 1, (out.decode(), err.decode())
        assert out.decode().rstrip().endswith("not sent")
        assert not any(m.role == "user" and "forwarded by t3tui" in m.text
                       for m in backend.engine.projection("thread-waves").messages)


@pytest.mark.parametrize(("command", "readme_opening"), [
    ("serve", "`t3tui serve` is an orchestration server"),
    ("web", "`t3tui web` serves the same app"),
])
def test_the_servers_help_and_readme_state_the_exit_codes_of_a_signal(
        command: str, readme_opening: str) -> None:
    """`serve` and `web` run until a signal: 128+N, as the app and every headless command."""
    parser = build_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    said = " ".join((subparsers.choices[command].description or "").split())
    text = README.read_text(encoding="utf-8")
    start = text.index(readme_opening)
    paragraph = " ".join(text[start:text.index("\n\n", start)].split())
    for where in (said, paragraph):
        assert "exits 128+N (130, 143, 129)" in where, (command, where)
        assert "2 when it cannot start" in where, (command, where)
