"""Everything one thread's state and detectors look at, assembled across threads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from t3tui.model.checkin import CheckIn, CheckInVerdict
from t3tui.model.facts import OwnFacts, TaskFacts
from t3tui.model.provider_record import ProtocolLog, ProviderRecord

if TYPE_CHECKING:
    from t3tui.model.index import Index


@dataclass(frozen=True)
class Detach:
    """A provider session this thread runs in was detached (or its sharer was settled)."""

    session_id: str
    by_thread: str
    by_title: str
    at: datetime | None
    reason: str | None
    inferred: bool  # from a sharer's settle/archive seen in a snapshot, not a live event


@dataclass(frozen=True)
class ThreadContext:
    """Inputs of the per-thread derivations; built by the Supervisor, consumed by pure code."""

    own: OwnFacts
    parent: OwnFacts | None
    task: TaskFacts | None                 # this thread's row in its parent's subagents[]
    blocked_on: tuple[TaskFacts, ...]      # wait tasks of its active run on a live child
    busy_children: int                     # direct children with live work in their subtree
    undelivered_children: int              # terminal child results still pending/claimed
    detaches: tuple[Detach, ...]
    checkin: CheckIn | None
    checkin_verdict: CheckInVerdict | None
    task_known: Callable[[str, str], bool]  # ("task"|"client_request", value) -> has a row
    provider_record: ProviderRecord | None = None  # the provider's own record, when read
    protocol_log: ProtocolLog | None = None        # T3's provider protocol log, when read
    # an interrupt this client sent and the server accepted: (run id, accepted at)
    sent_interrupt: tuple[str, datetime] | None = None
    orphaned_children: int = 0             # busy children whose wake was disposed / cohort closed

    @property
    def provider_native(self) -> bool:
        return self.task is not None and self.task.origin == "provider_native"


def detaches_of(ix: Index, own: OwnFacts) -> tuple[Detach, ...]:
    """What took `own`'s run sessions from it since it last attached each: detaches other
    threads recorded on them, and threads sharing them that settled or were archived."""
    out = []
    for sid in own.run_session_ids:
        reattached = own.session_attached_at.get(sid)
        for by, entries in ix.detaches.get(sid, {}).items():
            for at, reason in entries:
                if reattached is not None and at is not None and reattached > at:
                    continue
                out.append(Detach(sid, by, ix.own(by).title, at, reason, False))
        for other in ix.session_threads.get(sid, ()):
            if other == own.id:
                continue
            of = ix.own(other)
            at = of.settled_at if of.settled else of.archived_at
            if at is not None and (reattached is None or reattached <= at):
                reason = "Thread settled." if of.settled else "Thread archived."
                out.append(Detach(sid, other, of.title, at, reason, True))
    return tuple(out)
