"""Check-ins, the pure part: plan the `message.dispatch`, track the deadline, give a verdict."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class CheckIn:
    """One outstanding check-in. `sent_at`/`deadline` are the caller's clock."""

    thread_id: str
    text: str
    expect: str
    sent_at: datetime
    deadline: datetime
    message_id: str
    command_id: str


@dataclass(frozen=True)
class CheckInVerdict:
    """`pending`, `answered` (with latency), `busy` (refused / not sent) or `unanswered`."""

    verdict: str
    thread_id: str
    reason: str
    latency_s: float | None = None
    answered_at: datetime | None = None


@dataclass(frozen=True)
class CheckInPlan:
    """What to send: the command and the check-in to record."""

    checkin: CheckIn
    command: Any  # t3tui.protocol.MessageDispatch
    dispatch_mode: str
