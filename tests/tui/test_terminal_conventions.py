"""Terminal conventions (issue 21, item 9): Ctrl-C quits and help says how to quit; no
terminal (or TERM=dumb) is a one-line refusal, not a stream of escape codes; a refused token
ends the app with exit 2 and one line; `q` with an interrupt in flight warns first."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Static

from t3tui.backend.testing import BackendProcess, running_backend
from t3tui.tui.screenshots import settled, showcase_app
from t3tui.tui.view.helptext import help_text
from tests.tui.pty_run import start_in_pty
from tests.tui.test_live import choose, live_app, row, select
from tests.tui.waiting import until


async def test_ctrl_c_quits_like_q() -> None:
    app = showcase_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        await pilot.press("ctrl+c")
        await until(lambda: app.return_code is not None, timeout=5, what="the app quit")
        assert app.return_code == 0


def test_help_says_how_to_quit() -> None:
    text = help_text({}, lambda key: key).plain
    assert "ctrl+q" in text and "ctrl+c" in text, text


def run_app(args: list[str], env: dict[str, str], *, tty: bool,
            timeout: float = 30) -> tuple[int | None, bytes, bytes]:
    """`t3tui ARGS` with stdout a pipe (tty=False) or a pseudo-terminal; (code, out, err),
    the code None when it was still running after `timeout` seconds (then killed)."""
    full = {**os.environ, **env}
    if not tty:
        proc = subprocess.Popen([sys.executable, "-m", "t3tui", *args], env=full,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
            return proc.returncode, out, err
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            return None, out, err
    app = start_in_pty(args, full)
    try:
        code = app.proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    finally:
        app.close()
    return code, bytes(app.output), b""


def test_without_a_terminal_the_app_refuses_in_one_line(isolated_config: Path) -> None:
    code, out, err = run_app(["--frames", "showcase"], {"TERM": "xterm-256color"}, tty=False)
    assert code == 2, (code, len(out), err[-300:])
    assert out == b"", out[:200]
    line = err.decode()
    assert line.count("\n") == 1 and line.startswith("t3tui: "), line
    assert "terminal" in line and "t3tui status" in line, line


def test_term_dumb_is_refused_in_one_line(isolated_config: Path) -> None:
    code, out, _ = run_app(["--frames", "showcase"], {"TERM": "dumb"}, tty=True)
    assert code == 2, (code, out[-300:])
    text = out.decode(errors="replace").strip()
    assert "\x1b" not in text, text[:200]
    assert text.startswith("t3tui: ") and "TERM=dumb" in text and "\n" not in text, text


@pytest.mark.e2e
def test_a_refused_token_ends_the_app_with_exit_2_and_one_line(isolated_config: Path,
                                                                tmp_path: Path) -> None:
    backend = BackendProcess(scenario="demo", data_dir=tmp_path / "data").start()
    try:
        code, out, _ = run_app(["--url", backend.url],
                               {"TERM": "xterm-256color", "T3TUI_TOKEN": "not-the-token"},
                               tty=True, timeout=60)
    finally:
        backend.stop()
    assert code == 2, (code, out[-400:])
    after = out.decode(errors="replace").rsplit("\x1b[?1049l", 1)[-1]  # after the screen
    after = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", after)  # the terminal modes set back
    lines = [x for x in after.replace("\r", "").split("\n") if x.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("t3tui: ") and "refused the token" in lines[0], lines
    assert "not-the-token" not in out.decode(errors="replace")


@pytest.mark.e2e
async def test_q_with_an_interrupt_in_flight_warns_then_waits_or_quits() -> None:
    # the stop is accepted but never lands: the interrupt stays in flight
    async with running_backend(scenario="stop-never-lands") as backend:
        app = live_app(backend.url, backend.token, confirm_timeout=120)
        async with app.run_test(size=(160, 50)) as pilot:
            await until(lambda: (r := row(app, "Won't stop")) and r.active_run_id, timeout=30,
                        what="the child running")
            child = await select(pilot, "Won't stop")
            await pilot.press("i")
            await choose(pilot, "Interrupt")
            await until(lambda: "interrupt" in app.statuses.get(child.id, {}),
                        what="the interrupt in flight")
            assert not app.statuses[child.id]["interrupt"].done
            await pilot.press("q")
            await until(lambda: app.screen is not app.main_screen, what="a warning")
            body = str(app.screen.query_one("#dialog-body", Static).render())
            assert "Won't stop" in body and "interrupt" in body.lower(), body
            await choose(pilot, "Wait for the outcome")
            await until(lambda: app.screen is app.main_screen, what="back to the tree")
            assert app.return_code is None  # still running
            await pilot.press("q")
            await choose(pilot, "Quit anyway")
            await until(lambda: app.return_code is not None, what="the app quit")
        assert app.return_code == 0
        assert app.quit_note and "Won't stop" in app.quit_note, app.quit_note
