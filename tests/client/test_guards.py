"""The settle guard's shared-session rule (pure, and failing closed against the reference
backend) and duplicate dropping by sequence."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from t3tui.backend.testing import RunningBackend
from t3tui.client.errors import ClientError
from t3tui.client.items import is_duplicate
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.client.settle_guard import SharedSession, settle_risks, shared_sessions
from t3tui.client.state import Live
from t3tui.model import Supervisor
from t3tui.protocol.projection import ThreadProjection
from t3tui.protocol.stream import decode_shell_item, decode_thread_item


def projection(sessions: dict[str, str], threads: dict[str, tuple[str | None, str]]) -> ThreadProjection:
    """`sessions`: id -> status; `threads`: provider thread id -> (session id, status)."""
    wire: dict[str, Any] = {
        "providerSessions": [{"id": s, "status": st} for s, st in sessions.items()],
        "providerThreads": [
            {"id": t, "providerSessionId": s, "status": st} for t, (s, st) in threads.items()
        ],
    }
    return ThreadProjection.from_wire(wire)


def test_a_child_in_the_parents_live_session_is_a_risk() -> None:
    parent = projection({"ps-1": "ready"}, {"pt-p": ("ps-1", "idle")})
    same = projection({}, {"pt-c": ("ps-1", "idle")})
    other = projection({"ps-2": "ready"}, {"pt-o": ("ps-2", "idle")})
    assert shared_sessions(parent, {"child": same, "other": other}) == [
        SharedSession("child", "ps-1")
    ]


def test_a_stopped_session_is_not_detached_again() -> None:
    parent = projection({"ps-1": "stopped"}, {"pt-p": ("ps-1", "closed")})
    child = projection({}, {"pt-c": ("ps-1", "idle")})
    assert shared_sessions(parent, {"child": child}) == []


def test_no_children_no_risk() -> None:
    parent = projection({"ps-1": "running"}, {"pt-p": ("ps-1", "active")})
    assert shared_sessions(parent, {}) == []


def test_items_at_or_below_the_cursor_are_duplicates_snapshots_never() -> None:
    row = {"kind": "thread.removed", "sequence": 10, "location": "active", "threadId": "t"}
    item = decode_shell_item(row)
    assert is_duplicate(item, 10) and is_duplicate(item, 11)
    assert not is_duplicate(item, 9) and not is_duplicate(item, None)
    snapshot = decode_thread_item({"kind": "snapshot", "snapshotSequence": 5, "projection": {}})
    assert not is_duplicate(snapshot, 100)  # a reset after a restored database
    assert not is_duplicate(decode_thread_item({"kind": "synchronized"}), 100)


async def test_the_settle_guard_fails_closed_when_a_projection_cannot_be_read(
    backend: RunningBackend,
) -> None:
    session = Session(Target(backend.url, Secret(backend.token)), Supervisor())
    runner = asyncio.create_task(session.run())
    try:
        assert isinstance(await session.wait_synchronized(10), Live)
        assert await settle_risks(session, "no-such-parent", []) == []  # nothing to look at
        with pytest.raises(ClientError, match="no projection of no-such-parent, no-such-child"):
            await settle_risks(session, "no-such-parent", ["no-such-child"])
    finally:
        await session.stop()
        await asyncio.gather(runner, return_exceptions=True)
