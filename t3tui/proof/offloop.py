"""Blocking reads off the event loop, in a daemon thread of their own, waited for a bounded
time.

Not `asyncio.to_thread`: its threads are the loop's default executor's, and on exit Python
3.11's `asyncio.run` waits for them without limit (`shutdown_default_executor`, bounded only
from 3.12), as does the interpreter for any executor thread. A provider record on a stalled
network mount blocked its read for ever, and with it the exit of the command (`record` ran on
after SIGTERM, `status` never answered). A daemon thread holds no exit, and the loop waits for
its answer `bound_s` at most.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def off_loop(fn: Callable[..., T], *args: Any, bound_s: float,
                   name: str = "t3tui-read") -> T:
    """`fn(*args)` in a daemon thread; its result, or `TimeoutError` after `bound_s` seconds
    (the thread is left to end on its own; its result then goes nowhere)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def deliver(ok: bool, value: Any) -> None:
        if not future.done():  # not given up on (timed out, cancelled)
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    def run() -> None:
        try:
            value, ok = fn(*args), True
        except BaseException as exc:  # handed to the waiter, raised there
            value, ok = exc, False
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits
            loop.call_soon_threadsafe(deliver, ok, value)

    threading.Thread(target=run, name=name, daemon=True).start()
    async with asyncio.timeout(bound_s):
        return await future
