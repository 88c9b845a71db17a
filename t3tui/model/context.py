"""Everything one thread's state and detectors look at, assembled across threads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from t3tui.model.checkin import CheckIn, CheckInVerdict
from t3tui.model.facts import OwnFacts, TaskFacts
from t3tui.model.provider_record import ProtocolLog, ProviderRecord


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
