"""`t3tui` in a pseudo-terminal, as a user's terminal runs it: the process and all it has
written so far (a thread reads the terminal, so the app never blocks on a full one)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass
class PtyApp:
    proc: subprocess.Popen[bytes]
    output: bytearray
    master: int
    reader: threading.Thread

    def close(self) -> None:
        """Kill the app if it still runs, then stop reading its terminal."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=5)
        os.close(self.master)


def start_in_pty(args: Sequence[str], env: Mapping[str, str]) -> PtyApp:
    """`python -m t3tui ARGS` in a new session whose terminal is a fresh pseudo-terminal."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "t3tui", *args], env=dict(env), stdin=slave,
                            stdout=slave, stderr=slave, start_new_session=True)
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
    return PtyApp(proc, output, master, reader)
