"""Wait for a condition on what a stream has applied, with a deadline.

One loop for every source that announces its updates (`on_update`): the predicate is checked
after each announced batch, and every `tick` seconds as well, since a condition may turn on
time alone (a dwell, a deadline).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


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
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), min(tick, remaining))
    finally:
        stop()
