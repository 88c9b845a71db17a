"""A thread whose run hangs on a real backend, as the policy tests' engines meet it."""

from __future__ import annotations

from datetime import UTC, datetime

from t3tui.actions.port import SessionPort
from t3tui.backend.testing import RunningBackend, wait_until
from tests.headless.test_commands_e2e import active_run, launch

WAIT_S = 15  # generous: the suite runs on a loaded 2-core machine


def now() -> datetime:
    return datetime.now(UTC)


async def hanging_thread(backend: RunningBackend, *ports: SessionPort) -> str:
    """A new thread whose run hangs, once the backend runs it and each of `ports`' models
    sees its run active."""
    thread = await launch(backend, "Hang")
    await wait_until(lambda: active_run(backend, thread), timeout=WAIT_S)
    for port in ports:
        await seen_running(port, thread)
    return thread


async def seen_running(port: SessionPort, thread: str) -> None:
    """Until `port`'s model sees the thread's run active."""
    await port.wait_until(lambda: (r := port.supervisor.row(thread, now())) and r.active_run_id,
                          WAIT_S)
