"""A `Port` on a reference backend over real websockets: the headless side's `SessionPort`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from t3tui.actions import SessionPort
from t3tui.backend.testing import RunningBackend
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.model import DetectorConfig, Supervisor


@contextlib.asynccontextmanager
async def port_on(backend: RunningBackend) -> AsyncIterator[SessionPort]:
    """A synchronized session on `backend`, as the port every action is written against."""
    supervisor = Supervisor(config=DetectorConfig())
    session = Session(Target(backend.url, Secret(backend.token)), supervisor,
                      backoff=Backoff.fast(), ping_interval=1.0)
    runner = asyncio.create_task(session.run())
    try:
        await session.wait_synchronized(30)
        yield SessionPort(session, supervisor)
    finally:
        await session.stop()
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
