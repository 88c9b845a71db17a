"""The `watching` fixture's Ctrl-C ends its `watch` however the suite was started.

A whole suite started as a background job of a non-interactive shell (`make test > log &` in
a script: no job control) runs with SIGINT and SIGQUIT ignored, as POSIX has the shell do for
an asynchronous command; pytest, its xdist workers and every process a test starts inherit it
(measured: SigIgn 0x...6 at the start of each worker's first test file, before any test ran;
the same files in the foreground: 0x...0). `watch` rightly keeps an inherited ignore (nohup's
contract), so the fixture's SIGINT did nothing: each test using it waited 30 s, then killed
watch with SIGKILL (no cleanup). Here the worker ignores SIGINT as in such a run."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from t3tui.backend.testing import running_backend
from tests.policy.watcher import watching

pytestmark = pytest.mark.e2e


async def test_the_watcher_ends_its_watch_with_ctrl_c_in_a_run_that_ignores_it(
        tmp_path: Path) -> None:
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a background job's worker
    try:
        async with running_backend() as backend, \
                watching(backend, tmp=tmp_path, policy=None) as watch:
            started = time.monotonic()
            code = await watch.stop()
            took = time.monotonic() - started
    finally:
        signal.signal(signal.SIGINT, previous)
    assert code == 130, code  # Ctrl-C's exit, not SIGKILL's after the 30 s wait
    assert took < 15, took
