"""A process ended by a signal says so: the app exits 128+N (143 for SIGTERM, 129 for SIGHUP)
after cleaning up: the terminal given back (alternate screen left, modes reset), the
recording closed. A real `t3tui` in a pseudo-terminal, signalled as a service manager or a
closed terminal window would."""

from __future__ import annotations

import gzip
import os
import pty
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from t3tui.backend.testing import descendant_pids, pid_alive, poll_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_the_app_ended_by_a_signal_exits_128_plus_n_after_cleaning_up(
        signum: int, isolated_config: Path, tmp_path: Path) -> None:
    record = tmp_path / "session.t3rec.gz"
    master, slave = pty.openpty()
    proc = subprocess.Popen(  # the embedded demo: its backend and its agents are the app's
        [sys.executable, "-m", "t3tui", "--scenario", "demo", "--record", str(record)],
        env={**os.environ, "TERM": "xterm-256color"}, stdin=slave, stdout=slave, stderr=slave,
        start_new_session=True)
    os.close(slave)
    output = bytearray()

    def pump() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            output.extend(chunk)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        poll_until(lambda: b"\x1b[?1049h" in output and record.exists()
                   and record.stat().st_size > 0, timeout=60, what="the app on screen")
        started = poll_until(lambda: descendant_pids(proc.pid), timeout=30,
                             what="the demo backend")
        proc.send_signal(signum)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)
        os.close(master)
    assert code == 128 + signum, (code, bytes(output[-300:]))
    poll_until(lambda: not any(pid_alive(p) for p in started), timeout=15,
               what="the demo backend and its agents stopped")
    screen = bytes(output)
    assert screen.rfind(b"\x1b[?1049l") > screen.rfind(b"\x1b[?1049h"), screen[-300:]  # given back
    assert b"Traceback" not in screen
    assert gzip.decompress(record.read_bytes()).count(b"\n") > 1  # closed: a whole gzip stream
