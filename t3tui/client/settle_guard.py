"""Before settling: which unsettled descendants share a provider session with the thread.

Settling detaches every live provider session in the settled thread's projection; a child
that runs in one of them can lose its next turn's completion (delegation.md §6.2, seed 004).
Projections are fetched fresh, because what matters is the server's state right now.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from t3tui.client.errors import ClientError, RpcFailure
from t3tui.client.session import Session
from t3tui.protocol import ProtocolError
from t3tui.protocol.methods import GET_THREAD_PROJECTION
from t3tui.protocol.projection import ThreadProjection

DEAD_SESSION = frozenset({"stopped", "error"})
DEAD_PROVIDER_THREAD = frozenset({"closed", "archived"})


@dataclass(frozen=True)
class SharedSession:
    """`child_id` runs in provider session `session_id`, which the settle would detach."""

    child_id: str
    session_id: str


def detachable_sessions(projection: ThreadProjection) -> set[str]:
    """The live provider sessions a settle of this thread would detach."""
    sessions = {s.id for s in projection.provider_sessions if s.status not in DEAD_SESSION}
    threads = {
        pt.provider_session_id
        for pt in projection.provider_threads
        if pt.provider_session_id and pt.status not in DEAD_PROVIDER_THREAD
    }
    return sessions | threads


def sessions_used(projection: ThreadProjection) -> set[str]:
    """Every provider session this thread's provider threads live in."""
    return {pt.provider_session_id for pt in projection.provider_threads if pt.provider_session_id}


def shared_sessions(
    parent: ThreadProjection, children: Mapping[str, ThreadProjection]
) -> list[SharedSession]:
    detachable = detachable_sessions(parent)
    return [
        SharedSession(child_id, session_id)
        for child_id, projection in sorted(children.items())
        for session_id in sorted(sessions_used(projection) & detachable)
    ]


async def fetch_projection(session: Session, thread_id: str) -> ThreadProjection | None:
    """The thread's projection now, or None when the server does not know the thread."""
    try:
        raw = await session.call(GET_THREAD_PROJECTION, {"threadId": thread_id})
    except RpcFailure:
        return None
    try:
        return ThreadProjection.from_wire(raw)
    except ProtocolError as exc:
        raise ClientError(f"unreadable projection of {thread_id}: {exc.message}") from None


async def live_sessions(session: Session, thread_id: str) -> list[str]:
    """The thread's provider sessions that are not stopped or errored, from a fresh projection
    (what a forced stop detaches)."""
    projection = await fetch_projection(session, thread_id)
    if projection is None:
        return []
    return sorted(s.id for s in projection.provider_sessions if s.status not in DEAD_SESSION)


async def settle_risks(
    session: Session, thread_id: str, descendants: Iterable[str]
) -> list[SharedSession]:
    """The unsettled `descendants` that share a detachable provider session with the thread.

    Raises `ClientError` when a projection cannot be read: a guard that cannot look must not
    answer "no risk".
    """
    ids = list(descendants)
    if not ids:
        return []
    wanted = [thread_id, *ids]
    fetched = await asyncio.gather(*(fetch_projection(session, t) for t in wanted))
    unread = [t for t, p in zip(wanted, fetched, strict=True) if p is None]
    if unread:
        raise ClientError(
            "cannot check which children share the provider session: the server gave no "
            f"projection of {', '.join(unread[:3])}"
        )
    parent, *children = (p for p in fetched if p is not None)
    return shared_sessions(parent, dict(zip(ids, children, strict=True)))
