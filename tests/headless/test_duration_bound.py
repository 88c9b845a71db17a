"""`--duration` is a contract: a run bounded by it ends by then plus a grace, however it got
stuck (a task that swallows its cancellation makes asyncio.run wait forever; a hostile
server's socket that will not close). Seen once in a loaded whole-suite run: `watch
--duration 3` against the hostile server still running after 40 s."""

from __future__ import annotations

import asyncio
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


async def test_a_watch_ends_at_its_duration_when_a_change_comes_in_the_same_moment() -> None:
    """The cause of that hang. On Python 3.11, `asyncio.wait_for(wake.wait(), ...)` in the
    watch loop returns normally when the --duration deadline cancels the watch in the same turn
    of the loop as a change sets `wake` (CPython gh-86296): the cancellation is lost, the loop
    goes on, and `asyncio.run` waits for it forever. A loaded machine makes that turn likely:
    the loop is busy past both moments, and a hostile server's socket drops and frames are
    handled in the same turn as the deadline."""
    from t3tui.client.secret import Secret, Target
    from t3tui.client.session import Session
    from t3tui.client.state import Reconnecting
    from t3tui.headless.watch import Printer, watch_for
    from t3tui.model import Supervisor

    supervisor = Supervisor()
    # never run: the watch loop reads only the session's state and updates, no socket
    session = Session(Target("http://127.0.0.1:9", Secret("token")), supervisor)
    loop = asyncio.get_running_loop()
    before = asyncio.all_tasks()
    duration = 0.5
    # a loaded machine: the loop is busy (one slow callback) across both moments below, so
    # the socket's drop and the deadline are handled in the same turn, in that order
    loop.call_later(duration - 0.3, time.sleep, 0.6)
    loop.call_later(duration - 0.1, session.state.set, Reconnecting(1, "socket dropped"))
    watching = asyncio.create_task(watch_for(duration, session, supervisor, Printer(True)))
    try:
        done, _ = await asyncio.wait({watching}, timeout=5)
        assert done, "the watch went on past its --duration"
        assert watching.result() is None
    finally:
        for task in asyncio.all_tasks() - before - {asyncio.current_task()}:
            task.cancel()
        await asyncio.gather(*(asyncio.all_tasks() - before - {asyncio.current_task()}),
                             return_exceptions=True)
