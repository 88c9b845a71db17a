"""Session against the reference backend: sync, resume after a restart, unknown outcomes,
defects. Real sockets, real agent subprocesses, the same data directory and port."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from t3tui.backend.auth import generate_token
from t3tui.backend.server import BackendOptions, RunningBackend, open_backend
from t3tui.backend.testing import running_backend, wait_until
from t3tui.client.backoff import Backoff
from t3tui.client.checkin import run_checkin
from t3tui.client.errors import ClientError, ConnectionLost
from t3tui.client.outcome import Accepted, Unknown, new_command_id
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.client.state import ConnectionState, Live, Reconnecting, Stale, Syncing
from t3tui.model import Supervisor, SupervisorView
from t3tui.protocol.commands import MessageDispatch, StartImmediately
from tests.client.recording import Recording

pytestmark = pytest.mark.e2e

PARENT = "thread-parent"
SLOW = "Run `for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 0.3; done` then Reply DONE"


def start(backend: RunningBackend, sup: Supervisor) -> tuple[Session, asyncio.Task[None]]:
    target = Target(backend.url, Secret(backend.token))
    session = Session(target, sup, backoff=Backoff.fast(), ping_interval=0.5)
    return session, asyncio.create_task(session.run())


async def stop(session: Session, task: asyncio.Task[None]) -> None:
    await session.stop()
    await asyncio.gather(task, return_exceptions=True)


@asynccontextmanager
async def supervising(backend: RunningBackend, sup: Supervisor) -> AsyncIterator[Session]:
    session, task = start(backend, sup)
    try:
        yield session
    finally:
        await stop(session, task)


def message(thread_id: str, text: str) -> MessageDispatch:
    return MessageDispatch(
        command_id=new_command_id(), created_by="user", creation_source="web",
        thread_id=thread_id, message_id=new_command_id(), text=text, attachments=[],
        dispatch_mode=StartImmediately(),
    )


def tree(view: SupervisorView) -> list[tuple[Any, ...]]:
    """What must match between a resumed and a fresh client."""
    return [
        (r.id, r.title, r.parent_id, r.children, r.state, r.run_status, r.active_run_id,
         r.settled, tuple(f.rule for f in r.findings))
        for r in view.rows
    ]


def thread_events(backend: RunningBackend, thread_id: str, after: int) -> list[int]:
    return [e.sequence for e in backend.engine.store.events_after(after, thread_id=thread_id)]


async def test_sync_subscribes_the_parent_and_its_child(backend_004: RunningBackend) -> None:
    sup = Supervisor()
    async with supervising(backend_004, sup) as session:
        assert isinstance(await session.wait_synchronized(10), Live)
        view = sup.view(datetime.now(UTC))
        [parent] = [r for r in view.rows if r.id == PARENT]
        assert len(parent.children) == 1
        assert session.subscribed_threads == {PARENT, *parent.children}


async def test_resume_after_restart_applies_nothing_twice_misses_nothing_and_retries_once(
    tmp_path: Path,
) -> None:
    options = BackendOptions(data_dir=tmp_path, token=generate_token(), port=0,
                             scenario="settle-unsubscribe")
    sup = Recording()
    states: list[ConnectionState] = []
    running: tuple[Session, asyncio.Task[None]] | None = None
    try:
        async with open_backend(options) as first:
            port = first.port
            running = start(first, sup)
            session = running[0]
            session.state.subscribe(states.append)
            await session.wait_synchronized(10)
            assert (await session.dispatch(message(PARENT, SLOW))).kind == "accepted"
            # Stop mid-stream: the run is producing output right now.
            await wait_until(lambda: any("tick 2" in str(m) for m in _texts(first, PARENT)),
                             timeout=10, what="slow command output")

        await session.state.wait_for(lambda s: isinstance(s, Reconnecting))
        pending = message(PARENT, "Reply PONG")
        assert isinstance(await session.dispatch(pending), Unknown)

        async with open_backend(dataclasses.replace(options, port=port, scenario=None)) as second:
            assert isinstance(await session.wait_synchronized(10), Live)
            retried = await session.dispatch_until_known(pending, 10)
            again = await session.dispatch(pending)  # a second retry is still applied once
            assert isinstance(retried, Accepted) and isinstance(again, Accepted)
            projection = second.engine.projection(PARENT)
            assert [m.id for m in projection.messages].count(pending.message_id) == 1
            assert [r.user_message_id for r in projection.runs].count(pending.message_id) == 1

            def pong_done() -> bool:
                row = sup.row(PARENT, datetime.now(UTC))
                return row is not None and row.active_run_id is None and any(
                    m.text == "PONG" for m in second.engine.projection(PARENT).messages
                )

            assert await session.wait_until(pong_done, 15)
            head = second.engine.head

            def caught_up() -> bool:
                return all(
                    (sup.cursor_thread(t) or 0) >= max(thread_events(second, t, 0), default=0)
                    for t in session.subscribed_threads
                )

            assert await session.wait_until(caught_up, 10)
            # applied no event twice ...
            assert len(sup.handed) == len(set(sup.handed))
            # ... and missed none: every stored event of each thread after its snapshot
            for thread_id in session.subscribed_threads:
                snap, applied = sup.since_snapshot[thread_id]
                assert applied == thread_events(second, thread_id, snap), thread_id
            # ... so the tree equals a fresh client's
            fresh = Supervisor()
            async with supervising(second, fresh) as other:
                await other.wait_synchronized(10)
                now = datetime.now(UTC)
                assert second.engine.head == head
                assert tree(sup.view(now)) == tree(fresh.view(now))
    finally:
        if running is not None:
            await stop(*running)

    kinds = [s.kind for s in states]
    after = kinds[kinds.index("live"):]
    down = after.index("reconnecting")
    back = after.index("stale", down)
    assert "live" in after[back:]
    assert "syncing" not in after and "connecting" not in after


def _texts(backend: RunningBackend, thread_id: str) -> list[Any]:
    projection = backend.engine.projection(thread_id)
    return [*projection.turn_items, *projection.messages]


async def test_a_defect_fails_the_request_and_the_session_reconnects(
    backend_004: RunningBackend,
) -> None:
    sup = Supervisor()
    async with supervising(backend_004, sup) as session:
        await session.wait_synchronized(10)
        states: list[ConnectionState] = []
        session.state.subscribe(states.append)
        with pytest.raises(ConnectionLost, match="defect"):
            await asyncio.wait_for(session.call("orchestration.noSuchMethod", {}), 5)
        await session.wait_synchronized(10)
        assert isinstance(states[0], Reconnecting) and isinstance(states[-1], Live)
        assert any(isinstance(s, Stale) for s in states)
        assert not any(isinstance(s, Syncing) for s in states)


@pytest.fixture
async def backend_004() -> AsyncIterator[RunningBackend]:
    async with running_backend(scenario="settle-unsubscribe") as started:
        yield started


async def test_a_checkin_never_delivered_is_outcome_unknown_not_unanswered() -> None:
    sup = Supervisor()
    async with running_backend(scenario="settle-unsubscribe") as backend:
        session, task = start(backend, sup)
        assert isinstance(await session.wait_synchronized(10), Live)
    try:  # the server is gone for the whole check-in window
        with pytest.raises(ClientError, match="the check-in may not have reached the thread: not connected"):
            await run_checkin(session, PARENT, timeout_s=1)
    finally:
        await stop(session, task)
