"""A process ended by a signal says so: the app exits 128+N (143 for SIGTERM, 129 for SIGHUP)
after cleaning up: the terminal given back (alternate screen left, modes reset), the
recording closed. A real `t3tui` in a pseudo-terminal, signalled as a service manager or a
closed terminal window would."""

from __future__ import annotations

import gzip
import os
import signal
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
