"""`watch` run in the test's own process over a real session, and always torn down."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

from t3tui.client.session import Session
from t3tui.headless.acting import Acting
from t3tui.headless.watch import Printer, watch
from t3tui.model import Supervisor


@contextlib.asynccontextmanager
async def watch_in_process(session: Session, sup: Supervisor, printer: Printer, *,
                           acting: Acting | None = None,
                           synchronized_s: float = 60.0,
                           monotonic: Callable[[], float] = time.monotonic
                           ) -> AsyncIterator[None]:
    """`session` running and `watch` on it (its clock for pauses `monotonic`), once
    synchronized; at the end the watch stops, then `acting` closes, then the session."""
    runner = asyncio.create_task(session.run())
    watcher = None
    try:
        await session.wait_synchronized(synchronized_s)
        watcher = asyncio.create_task(watch(session, sup, printer, acting, monotonic))
        yield
    finally:
        if watcher is not None:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        if acting is not None:
            await acting.close(1)
        await session.stop()
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
