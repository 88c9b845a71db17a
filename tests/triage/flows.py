"""Recording the seed flows from the reference backend, with what the live client saw.

A `Session` with a `Recorder` (the path `--record` and `t3tui record` take) runs the seed
flow; a sampler looks at the live supervisor every 50 ms and keeps, for each finding, the
first moment it was seen and its `since`, so replays can be compared with the live run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from t3tui.backend.provider.faults import SETTLE_DROPS_CHILD_SUBSCRIPTION
from t3tui.backend.testing import running_backend
from t3tui.client.backoff import Backoff
from t3tui.client.checkin import run_checkin
from t3tui.client.outcome import new_command_id
from t3tui.client.recorder import Recorder
from t3tui.client.secret import resolve_target
from t3tui.client.session import Session
from t3tui.model import Supervisor
from t3tui.protocol import ThreadSettle

SAMPLE_S = 0.05
CHECKIN_S = 3.0


@dataclass
class LiveRun:
    """What the live client saw: first sighting and `since` of each finding key."""

    path: Path
    first_seen: dict[tuple[str, str, str], datetime] = field(default_factory=dict)
    since: dict[tuple[str, str, str], datetime | None] = field(default_factory=dict)
    parent: str = ""
    child: str = ""
    end: datetime | None = None


class Watched(Supervisor):
    """A Supervisor that also notes the event types it was fed (to wait on one)."""

    def __init__(self) -> None:
        super().__init__()
        self.event_types: set[str] = set()

    def apply_thread(self, thread_id: str, item: object) -> None:
        # the feed hands typed items or, on its fast path, the wire dicts themselves
        event = item.get("event") if isinstance(item, dict) else getattr(item, "event", None)
        kind = event.get("type") if isinstance(event, dict) else getattr(event, "type", None)
        if isinstance(kind, str):
            self.event_types.add(kind)
        super().apply_thread(thread_id, item)


def now() -> datetime:
    return datetime.now(UTC)


@contextlib.asynccontextmanager
async def recorded_session(path: Path, live: LiveRun, **backend: object
                           ) -> AsyncIterator[tuple[Session, Watched]]:
    async with running_backend(**backend) as server:  # type: ignore[arg-type]
        recorder = Recorder(path, url=server.url)
        sup = Watched()
        session = Session(resolve_target(server.url, server.token), sup,
                          backoff=Backoff.fast(), recorder=recorder)
        runner = asyncio.create_task(session.run())

        def look(at: datetime) -> None:
            for finding in sup.view(at).findings:
                if finding.key not in live.first_seen:
                    live.first_seen[finding.key] = at
                    live.since[finding.key] = finding.since

        async def sample() -> None:
            while True:
                look(now())
                await asyncio.sleep(SAMPLE_S)

        sampler = asyncio.create_task(sample())
        try:
            await session.wait_synchronized(30)
            yield session, sup
        finally:
            sampler.cancel()
            live.end = now()
            look(live.end)  # the live run ends seen: a flag that came after the last sample too
            await session.stop()
            await runner
            recorder.close()


def rows(sup: Supervisor):
    return sup.view(now()).rows


async def seed004(session: Session, sup: Watched, live: LiveRun) -> None:
    """Settle the parent, check in on its child (3 s), wait for the stuck flag."""
    def idle_pair() -> bool:
        r = rows(sup)
        return len(r) == 2 and all(x.active_run_id is None for x in r) and r[1].task is not None
    assert await session.wait_until(idle_pair, 60)
    live.parent, live.child = (r.id for r in rows(sup))
    await session.dispatch(ThreadSettle(command_id=new_command_id(), thread_id=live.parent))
    assert await session.wait_until(lambda: bool(rows(sup)[0].settled), 30)
    # as in the seed, the check-in comes after the settle has detached the shared session
    assert await session.wait_until(
        lambda: "provider-session.detached" in sup.event_types, 30)
    verdict = await run_checkin(session, live.child, timeout_s=CHECKIN_S)
    assert verdict.verdict == "unanswered", verdict

    def flagged() -> bool:
        return any(k == ("stuck", live.child, "checkin-unanswered") for k in live.first_seen)
    assert await session.wait_until(flagged, 20), (live.first_seen, sup.view(now()).findings)
    await asyncio.sleep(0.3)  # a few samples after the flag


async def seed000(session: Session, sup: Watched, live: LiveRun) -> None:
    """Batched wait-mode delegations, served one at a time: wait for the serialized flag."""
    def done() -> bool:
        r = rows(sup)
        return len(r) == 3 and r[0].run_status == "completed" and any(
            k[0] == "serialized_wait" for k in live.first_seen)
    assert await session.wait_until(done, 90)
    live.parent = rows(sup)[0].id
    await asyncio.sleep(0.3)


Flow = Callable[[Session, Watched, LiveRun], Awaitable[None]]


async def record_flow(path: Path, flow: Flow, **backend: object) -> LiveRun:
    live = LiveRun(path)
    async with recorded_session(path, live, **backend) as (session, sup):
        await flow(session, sup, live)
    return live


async def record_seed004(path: Path) -> LiveRun:
    return await record_flow(path, seed004, scenario="settle-unsubscribe",
                             faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION])


async def record_seed000(path: Path) -> LiveRun:
    return await record_flow(path, seed000, scenario="parallel-probe", dispatch="serial")
