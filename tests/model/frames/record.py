"""Record frame fixtures from the reference backend over a real socket:
`python -m tests.model.frames.record` (takes about a minute; run it when the backend changes).

Every item the client hands the model is stored in its wire form, with marks carrying the
wall-clock time of key moments, so tests can replay them and view at those times.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from t3tui.backend.testing import running_backend
from t3tui.client.backoff import Backoff
from t3tui.client.checkin import run_checkin
from t3tui.client.outcome import new_command_id
from t3tui.client.secret import resolve_target
from t3tui.client.session import Session
from t3tui.model import Supervisor
from t3tui.protocol import ThreadSettle
from tests.model.timeline import FRAMES


class Recorder(Supervisor):
    """A Supervisor that also keeps every item it is fed."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[dict[str, Any]] = []

    def apply_shell(self, item: Any) -> None:
        self.frames.append({"stream": "shell", "item": item.to_wire()})
        super().apply_shell(item)

    def apply_thread(self, thread_id: str, item: Any) -> None:
        self.frames.append({"stream": "thread", "threadId": thread_id, "item": item.to_wire()})
        super().apply_thread(thread_id, item)

    def mark(self, name: str) -> datetime:
        now = datetime.now(UTC)
        self.frames.append({"mark": name, "at": now.isoformat()})
        return now


Steps = Callable[[Session, Recorder], Awaitable[None]]


def _rows(sup: Recorder):
    return sup.view(datetime.now(UTC)).rows


async def record(name: str, description: str, steps: Steps, *, scenario: str,
                 dispatch: str = "parallel", faults: tuple[str, ...] = ()) -> None:
    async with running_backend(scenario=scenario, dispatch=dispatch, faults=faults) as backend:
        sup = Recorder()
        session = Session(resolve_target(backend.url, backend.token), sup, backoff=Backoff.fast())
        runner = asyncio.create_task(session.run())
        try:
            await session.wait_synchronized(30)
            await steps(session, sup)
        finally:
            await session.stop()
            await runner
    path = FRAMES / f"{name}.json"
    lines = ",\n".join(json.dumps(fr, separators=(",", ":")) for fr in sup.frames)
    path.write_text("{\"description\": " + json.dumps(description) + ",\n\"recorded\": [\n" + lines + "\n]}\n")
    print(path)


async def probe_steps(session: Session, sup: Recorder) -> None:
    def finished() -> bool:
        rows = _rows(sup)
        return len(rows) == 3 and rows[0].state in ("idle", "waiting") and rows[0].run_status == "completed"
    await session.wait_until(finished, 90)
    sup.mark("end")


async def settle_steps(session: Session, sup: Recorder) -> None:
    def idle_pair() -> bool:
        rows = _rows(sup)
        return len(rows) == 2 and all(r.active_run_id is None for r in rows) and rows[1].task is not None
    await session.wait_until(idle_pair, 60)
    parent, child = (r.id for r in _rows(sup))
    sup.mark("before-settle")
    await session.dispatch(ThreadSettle(command_id=new_command_id(), thread_id=parent))
    await session.wait_until(lambda: bool(_rows(sup)[0].settled), 30)
    sup.mark("after-settle")
    verdict = await run_checkin(session, child, timeout_s=5)
    sup.mark(f"checkin-{verdict.verdict}")

    def settled_down() -> bool:  # the run ends, or the model flags it
        row = sup.row(child, datetime.now(UTC))
        return row is not None and (row.active_run_id is None or row.state == "stuck")
    await session.wait_until(settled_down, 20)
    sup.mark("end")


async def main() -> None:
    await record("recorded_serial_waits", "Reference backend, scenario parallel-probe, --dispatch serial.",
                 probe_steps, scenario="parallel-probe", dispatch="serial")
    await record("recorded_parallel_waits", "Reference backend, scenario parallel-probe, parallel dispatch.",
                 probe_steps, scenario="parallel-probe")
    await record("recorded_settle_fault",
                 "Reference backend, scenario settle-unsubscribe with the seed 004 fault: settle the "
                 "parent, then a 5 s check-in to the child.",
                 settle_steps, scenario="settle-unsubscribe", faults=("settle-drops-child-subscription",))
    await record("recorded_settle_healthy",
                 "Reference backend, scenario settle-unsubscribe without faults: settle, then check-in.",
                 settle_steps, scenario="settle-unsubscribe")


if __name__ == "__main__":
    asyncio.run(main())
