"""`--duration` is a contract: a run bounded by it ends by then plus a grace, however it got
stuck (a task that swallows its cancellation makes asyncio.run wait forever; a hostile
server's socket that will not close). Seen once in a loaded whole-suite run: `watch
--duration 3` against the hostile server still running after 40 s."""

from __future__ import annotations

import subprocess
import sys
import time

STUCK = """
import asyncio
from t3tui.headless.common import exit_if_stuck, run_async
print("working", flush=True)
exit_if_stuck(0.5, "watch")

async def main() -> int:
    async def deaf() -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                continue  # swallows its cancellation: asyncio.run would wait for it forever
    asyncio.get_running_loop().create_task(deaf())
    await asyncio.sleep(0)
    return 0

run_async(main)
"""


def test_a_run_stuck_after_its_duration_ends_with_one_line_and_exit_2() -> None:
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", STUCK], capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert time.monotonic() - started < 30
    assert proc.returncode == 2, proc
    assert proc.stdout == b"working\n"
    assert proc.stderr.decode().splitlines() == [
        "t3tui: watch did not stop within 10s of its --duration; exiting"]


def test_the_bound_ends_with_the_run_it_guards() -> None:
    # `watch` also runs inside other processes (the suite calls it in-process): a run that
    # ended in time must take its bound with it, or the bound ends the host process later
    import threading

    from t3tui.headless.common import bounded_by

    before = set(threading.enumerate())
    with bounded_by(0.2, "watch"):
        pass
    assert [t for t in threading.enumerate() if t not in before and t.is_alive()] == []
