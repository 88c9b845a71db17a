"""Wait for a condition on what a stream has applied, with a deadline.

One loop for every source that announces its updates (`on_update`): the predicate is checked
after each announced batch, and every `tick` seconds as well, since a condition may turn on
time alone (a dwell, a deadline).

Never `asyncio.wait_for(event.wait(), t)` in a loop that runs until cancelled: on Python 3.11
it returns normally when its caller is cancelled in the same turn of the loop as the event is
set, losing the cancellation (CPython gh-86296, fixed in 3.12), and the loop then never ends
(`t3tui watch --duration` once ran on for ever that way). `set_within` keeps it.

A deadline that judges the server (no `synchronized`, no Pong) counts only the time this
process ran: while it is stopped (SIGSTOP, a laptop's suspend) the monotonic clock moves on
but nothing can be read, and on resume what the server sent meanwhile is still unread. A
loop that looks every second or so and sees a gap over `PAUSE_S` was paused (`paused_for`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Final, TypeVar

T = TypeVar("T")

PAUSE_S: Final = 5.0  # a loop that looks every second: five without a look is a pause


def paused_for(expected: float, elapsed: float) -> float:
    """Of `elapsed` seconds between two looks meant to be `expected` apart, how long the
    process was paused: all of it past the expected wait when that overshoot is a pause."""
    over = elapsed - expected
    return over if over > PAUSE_S else 0.0


async def set_within(event: asyncio.Event, timeout: float) -> bool:
    """True once `event` is set, False when `timeout` seconds pass first; a cancellation of
    the caller is always raised, whatever else happened in the same turn of the loop."""
    waiter = asyncio.ensure_future(event.wait())
    try:
        done, _ = await asyncio.wait((waiter,), timeout=timeout)
    finally:
        waiter.cancel()
    return bool(done)


async def wait_for_update(
    on_update: Callable[[Callable[[Any], None]], Callable[[], None]],
    predicate: Callable[[], T | None],
    timeout: float,
    tick: float = 0.25,
) -> T | None:
    """The predicate's first truthy value, or None when `timeout` passes first."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    wake = asyncio.Event()
    stop = on_update(lambda _update: wake.set())
    try:
        while True:
            wake.clear()
            value = predicate()
            remaining = deadline - loop.time()
            if value or remaining <= 0:
                return value or None
            await set_within(wake, min(tick, remaining))
    finally:
        stop()
