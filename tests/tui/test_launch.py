"""`t3tui` itself: startup errors are one line and exit 2; the demo starts, shows, and leaves
no process behind on `q`, SIGTERM or SIGKILL (a pseudo-terminal, a real backend)."""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest

from t3tui.backend.testing import descendant_pids, pid_alive, poll_until
from t3tui.cli import main


def test_bad_config_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[keys]\nsettel = 's'\n")
    assert main(["--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("t3tui: ") and "unknown action 'settel'" in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_url_without_token(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "http://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert "need a token" in err and "Traceback" not in err


def test_unknown_frames(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--frames", "no-such-recording"]) == 2
    assert "cannot read frames no-such-recording" in capsys.readouterr().err


class Terminal:
    """`t3tui` in a pseudo-terminal of a given size; the screen bytes are collected."""

    def __init__(self, home: Path, *args: str, size: tuple[int, int] = (120, 40)) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
               "TERM": "xterm-256color", "COLUMNS": str(size[0]), "LINES": str(size[1])}
        self.proc = subprocess.Popen([sys.executable, "-m", "t3tui", *args], stdin=slave,
                                     stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.master = master
        self.output = bytearray()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output.extend(chunk)

    def shows(self, text: str) -> bool:
        return text.encode() in self.output

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)


@pytest.fixture
def home(isolated_config: Path) -> Path:
    return isolated_config


def _demo_then(home: Path, stop: str) -> None:
    term = Terminal(home)
    try:
        poll_until(lambda: term.shows("Fan out the checks"), timeout=60,
                   what="the demo tree on screen")
        children = descendant_pids(term.proc.pid)
        assert children, "the demo backend runs as a child process"
        if stop == "q":
            term.type("q")
        elif stop == "sigterm":
            term.proc.send_signal(signal.SIGTERM)
        else:  # a crash: nothing in t3tui gets to clean up
            term.proc.kill()
        assert term.proc.wait(timeout=30) in (0, 128 + signal.SIGTERM, -signal.SIGKILL)
        poll_until(lambda: not any(pid_alive(p) for p in children), timeout=30,
                   what="every backend and agent process gone")
        assert b"Traceback" not in term.output
    finally:
        term.close()


@pytest.mark.e2e
def test_demo_quits_cleanly_with_q(home: Path) -> None:
    _demo_then(home, "q")


@pytest.mark.e2e
def test_demo_stops_its_backend_on_sigterm(home: Path) -> None:
    _demo_then(home, "sigterm")


@pytest.mark.e2e
def test_demo_backend_exits_when_t3tui_is_killed(home: Path) -> None:
    _demo_then(home, "kill")


@pytest.mark.e2e
def test_a_dead_demo_backend_is_said_plainly(home: Path) -> None:
    # It used to show "reconnecting (attempt N)" forever to a backend that cannot come back.
    term = Terminal(home)
    try:
        poll_until(lambda: term.shows("Fan out the checks"), timeout=60,
                   what="the demo tree on screen")
        server = next(p for p in descendant_pids(term.proc.pid)
                      if b"serve" in Path(f"/proc/{p}/cmdline").read_bytes())
        os.kill(server, signal.SIGKILL)
        poll_until(lambda: term.shows("the demo backend exited"), timeout=30,
                   what="the banner names the dead backend")
        term.type("q")
        assert term.proc.wait(timeout=30) == 0
        assert b"Traceback" not in term.output
    finally:
        term.close()
