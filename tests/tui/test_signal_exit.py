"""A process ended by a signal says so: the app exits 128+N (143 for SIGTERM, 129 for SIGHUP)
after cleaning up: the terminal given back (alternate screen left, modes reset), the
recording closed. A real `t3tui` in a pseudo-terminal, signalled as a service manager or a
closed terminal window would."""

from __future__ import annotations

import gzip
import os
import signal
import termios
from pathlib import Path

import pytest

from t3tui.backend.testing import descendant_pids, pid_alive, poll_until
from tests.tui.pty_run import start_in_pty

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_the_app_ended_by_a_signal_exits_128_plus_n_after_cleaning_up(
        signum: int, isolated_config: Path, tmp_path: Path) -> None:
    record = tmp_path / "session.t3rec.gz"
    app = start_in_pty(  # the embedded demo: its backend and its agents are the app's
        ["--scenario", "demo", "--record", str(record)], {**os.environ, "TERM": "xterm-256color"})
    proc, output = app.proc, app.output
    try:
        poll_until(lambda: b"\x1b[?1049h" in output and record.exists()
                   and record.stat().st_size > 0, timeout=60, what="the app on screen")
        started = poll_until(lambda: descendant_pids(proc.pid), timeout=30,
                             what="the demo backend")
        proc.send_signal(signum)
        code = proc.wait(timeout=30)
    finally:
        app.close()
    assert code == 128 + signum, (code, bytes(output[-300:]))
    poll_until(lambda: not any(pid_alive(p) for p in started), timeout=15,
               what="the demo backend and its agents stopped")
    screen = bytes(output)
    assert screen.rfind(b"\x1b[?1049l") > screen.rfind(b"\x1b[?1049h"), screen[-300:]  # given back
    assert b"Traceback" not in screen
    assert gzip.decompress(record.read_bytes()).count(b"\n") > 1  # closed: a whole gzip stream


def _stopped(pid: int) -> bool:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "Tt"


def test_the_app_stopped_and_continued_from_outside_still_ends_on_sigterm(
        isolated_config: Path) -> None:
    """SIGSTOP and SIGCONT from outside (`kill -STOP`, a wrapper whose stop sticks, a
    debugger): the app goes on reading its terminal and still ends on SIGTERM, its terminal
    given back as it found it. Found in tmux: a SIGCONT the app had not asked for started its
    terminal mode again over the running one, with a second reader of the terminal and the
    raw mode taken for the one to restore; a key read by one reader left the other in a read,
    and at exit the app waited on it for good, deaf to SIGTERM and SIGINT."""
    app = start_in_pty(["--scenario", "parallel-probe"], {**os.environ, "TERM": "xterm-256color"})
    proc, output = app.proc, app.output
    cooked = termios.tcgetattr(app.master)  # the terminal as the app found it
    try:
        poll_until(lambda: b"\x1b[?1049h" in output and len(output) > 5000, timeout=60,
                   what="the app on screen")
        for _ in range(3):
            proc.send_signal(signal.SIGSTOP)
            poll_until(lambda: _stopped(proc.pid), what="the app stopped")
            shown = len(output)
            proc.send_signal(signal.SIGCONT)
            for key in (b"j", b"k"):  # keys after the continue: the user is back
                poll_until(lambda n=shown: len(output) > n, what="the app drawing on")
                shown = len(output)
                os.write(app.master, key)
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
        restored = termios.tcgetattr(app.master)
    finally:
        app.close()
    screen = bytes(output)
    assert code == 128 + signal.SIGTERM, (code, screen[-300:])
    assert screen.rfind(b"\x1b[?1049l") > screen.rfind(b"\x1b[?1049h"), screen[-300:]
    assert restored[3] == cooked[3] and restored[0] == cooked[0], (restored, cooked)  # modes
    assert b"Traceback" not in screen
