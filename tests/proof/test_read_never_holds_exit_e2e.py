"""A provider-record read that never returns (a record on a stalled network mount) holds no
command: Python 3.11's `asyncio.run` waited without limit at exit for the worker thread of
the loop's default executor that ran the read, so `t3tui record` outlived SIGTERM, and
`t3tui status` never answered. Real `t3tui` processes against the reference backend, with a
real record found; only the read of it is made to block for ever (a stalled mount cannot be
made here: a FIFO is never opened, its size being 0)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from t3tui.backend.testing import RunningBackend, running_backend, wait_until
from tests.headless.test_commands_e2e import launch
from tests.proof.helpers import rollout_of

pytestmark = pytest.mark.e2e


# `python -m t3tui`, but every read of a record's file blocks for ever, as on a stalled mount
# (and says so on stderr first, so that the test knows the read has begun)
STALLED_READ = "stalled read begun"
STALLED = f"""
import sys, threading
from t3tui.proof import tail
def read(self):
    print({STALLED_READ!r}, file=sys.stderr, flush=True)
    threading.Event().wait()
tail.JsonlTail.read = read
from t3tui.cli import main
sys.exit(main())
"""


async def _home(backend: RunningBackend) -> Path:
    """The backend's Codex home, once the thread's rollout is in it."""
    thread = await launch(backend, "Reply READY")
    await wait_until(lambda: _rollout(backend, thread), timeout=15, what="a rollout")
    return backend.data_dir / "codex-home"


def _rollout(backend: RunningBackend, thread: str) -> Path | None:
    try:
        return rollout_of(backend, thread)
    except (ValueError, KeyError, IndexError):
        return None


async def _t3tui(backend: RunningBackend, *args: str) -> asyncio.subprocess.Process:
    env = dict(os.environ, T3TUI_URL=backend.url, T3TUI_TOKEN=backend.token)
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", STALLED, *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env)


async def _ended(proc: asyncio.subprocess.Process, within: float, what: str) -> tuple[int, str]:
    try:
        async with asyncio.timeout(within):
            _, err = await proc.communicate()
    except TimeoutError:
        proc.kill()
        _, err = await proc.communicate()
        raise AssertionError(f"{what}: still running after {within:g} s; it wrote "
                             f"{err.decode()[-1500:]!r}") from None
    assert proc.returncode is not None
    return proc.returncode, err.decode()


async def test_a_record_read_that_never_returns_does_not_hold_the_exit(tmp_path: Path) -> None:
    async with running_backend() as backend:
        home = await _home(backend)
        proc = await _t3tui(backend, "record", "-o", str(tmp_path / "r.ndjson.gz"),
                            "--codex-home", str(home), "--claude-home", "off")
        assert proc.stderr is not None
        line = await asyncio.wait_for(proc.stderr.readline(), 15)  # "recording ... to ..."
        assert b"recording" in line, line
        # a look at the records (one a second) has begun, and hangs
        async with asyncio.timeout(30):
            while STALLED_READ.encode() not in (line := await proc.stderr.readline()):
                assert line, "record ended before it read a record"
        proc.send_signal(signal.SIGTERM)
        code, err = await _ended(proc, 10, "record after SIGTERM")
    assert code == 143 and "Traceback" not in err, (code, err)


async def test_status_answers_though_a_record_read_never_returns(tmp_path: Path) -> None:
    async with running_backend() as backend:
        home = await _home(backend)
        proc = await _t3tui(backend, "status", "--codex-home", str(home),
                            "--claude-home", "off")
        code, err = await _ended(proc, 30, "status")
    assert code == 0 and "Traceback" not in err, (code, err)
