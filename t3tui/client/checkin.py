"""Check-ins, the I/O side: send the model's planned message, watch the stream to a verdict.

The verdict itself is the model's (`Supervisor.checkin_verdict`); this module only sends,
re-evaluates after every stream update and on a tick, and stops at the deadline.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from t3tui.client.errors import ClientError
from t3tui.client.outcome import Rejected, Unknown, new_command_id
from t3tui.client.session import Session
from t3tui.model.checkin import CheckIn, CheckInVerdict, plan_checkin

Clock = Callable[[], datetime]
# How long past the deadline the model may take to turn `pending` into a verdict.
GRACE_S = 5.0


def utc_now() -> datetime:
    return datetime.now(UTC)


def checkin_note(checkin: CheckIn) -> dict[str, Any]:
    """A check-in as a recording keeps it: its deadline exists only on this side."""
    return {"threadId": checkin.thread_id, "text": checkin.text, "expect": checkin.expect,
            "sentAt": checkin.sent_at.isoformat(), "deadline": checkin.deadline.isoformat(),
            "messageId": checkin.message_id, "commandId": checkin.command_id}


class UnknownThread(ClientError):
    """The thread is not in the supervised tree."""


async def run_checkin(
    session: Session,
    thread_id: str,
    *,
    text: str | None = None,
    expect: str | None = None,
    timeout_s: float | None = None,
    queue_if_busy: bool = True,
    clock: Clock = utc_now,
) -> CheckInVerdict:
    """Send one check-in to `thread_id` and wait for its verdict (never `pending`)."""
    sup: Any = session.sink
    row = sup.row(thread_id, clock())
    if row is None:
        raise UnknownThread(f"no thread {thread_id!r} on this server")
    plan = plan_checkin(
        row,
        command_id=new_command_id(),
        message_id=new_command_id(),
        now=clock(),
        text=text,
        expect=expect,
        timeout_s=timeout_s,
        queue_if_busy=queue_if_busy,
        config=sup.config,
    )
    if isinstance(plan, CheckInVerdict):
        return plan
    # The answer arrives on the thread's own stream: make sure it is subscribed.
    opened_here = session.open_thread(thread_id)
    try:
        sup.record_checkin(plan.checkin)
        session.note("checkin", checkin_note(plan.checkin))
        budget = (plan.checkin.deadline - clock()).total_seconds()
        outcome = await session.dispatch_until_known(plan.command, max(budget, 0.0))
        if isinstance(outcome, Rejected):
            reason = outcome.message if not outcome.detail else f"{outcome.message} ({outcome.detail})"
            sup.checkin_rejected(thread_id, reason)

        def decided() -> CheckInVerdict | None:
            verdict = sup.checkin_verdict(thread_id, clock())
            return verdict if verdict is not None and verdict.verdict != "pending" else None

        remaining = (plan.checkin.deadline - clock()).total_seconds()
        verdict = await session.wait_until(decided, max(remaining, 0.0) + GRACE_S)
        if verdict is None:
            raise ClientError(f"no check-in verdict for {thread_id} after its deadline")
        if verdict.verdict == "unanswered" and isinstance(outcome, Unknown):
            # The question may never have reached the thread: not the agent's silence.
            raise ClientError(f"the check-in may not have reached the thread: {outcome.reason}")
        return verdict
    finally:
        if opened_here:
            session.close_thread(thread_id)
