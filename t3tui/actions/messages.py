"""Words sent to a thread: a message, an answer to its pending request, a child's result
forwarded to its parent, and a check-in ("Reply exactly PONG") with its verdict."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from t3tui.actions.outcome import Kind, Outcome, send_and_confirm
from t3tui.actions.port import Clock, IdFactory, Port, Report
from t3tui.client.errors import ClientError, describe
from t3tui.client.outcome import new_command_id
from t3tui.model import ThreadRow
from t3tui.model.forwarding import forward_text, forwarded_refusal
from t3tui.protocol.commands import (
    MessageDispatch,
    QueueAfterActive,
    RuntimeRequestRespond,
    StartImmediately,
)


def is_busy(row: ThreadRow | None) -> bool:
    """A message to this thread waits for its active run (it is queued, not started)."""
    return row is not None and (row.active_run_id is not None or bool(row.activity_run_status))


async def send_message(port: Port, thread_id: str, text: str, *, report: Report, clock: Clock,
                       timeout: float, new_id: IdFactory = new_command_id) -> Outcome:
    """`message.dispatch` as the user (queued after an active run); ok once the thread's own
    stream shows the message. `extra["queued"]`: it waits for the active run."""
    busy = is_busy(port.supervisor.row(thread_id, clock()))
    mode = QueueAfterActive() if busy else StartImmediately()
    message_id = new_id()
    command = MessageDispatch(command_id=new_id(), thread_id=thread_id, message_id=message_id,
                              text=text, dispatch_mode=mode)

    def delivered() -> bool:
        return port.supervisor.has_message(thread_id, message_id)

    # Our message shows up on the thread's own stream: keep it subscribed meanwhile.
    opened = port.open_thread(thread_id)
    try:
        queued = " (queued after the active run)" if busy else ""
        outcome = await send_and_confirm(
            port, command, report=report, confirmed=delivered, timeout=timeout,
            doing="Sending message", done=lambda _: f"message delivered{queued}",
            not_done=f"accepted, but the message did not show up within {timeout:g}s",
        )
    finally:
        if opened:
            port.close_thread(thread_id)
    return replace(outcome, extra={"queued": busy})


async def parent_forwards(port: Port, parent_id: str,
                          timeout: float) -> dict[str, datetime | None] | None:
    """What the parent's messages say t3tui already forwarded (`Supervisor.forwards`), once its
    own stream has loaded (the caller keeps it open); None when it did not load in time."""
    rows = port.supervisor
    if not rows.thread_synchronized(parent_id) and not await port.wait_until(
            lambda: rows.thread_synchronized(parent_id) or None, timeout):
        return None
    return rows.forwards(parent_id)


async def forward(port: Port, child: ThreadRow, *, report: Report, clock: Clock,
                  timeout: float, text: str | None = None, again: bool = False,
                  new_id: IdFactory = new_command_id) -> Outcome:
    """Hand a child's result to its parent: one message, exactly `text` (by default
    `forward_text`, the child's published result quoted). Whether it may be forwarded at all
    is `unavailable("forward", ...)` (`forward_refusal`). Once: a result the parent's
    messages already carry is not sent again (an unattended supervisor, a key pressed twice)
    unless `again`."""
    parent_id = child.task.parent_thread_id if child.task is not None else None
    parent = port.supervisor.row(parent_id, clock()) if parent_id else None
    if parent is None:
        why = "its parent is not on this server"
        report("failed", why)
        return Outcome("unavailable", why)
    opened = port.open_thread(parent.id)  # its messages say whether it was forwarded already
    try:
        if not again:
            forwards = await parent_forwards(port, parent.id, timeout)
            why_not = ("the parent's messages did not load: not sent, as it may have been "
                       "forwarded already" if forwards is None
                       else forwarded_refusal(child, forwards))
            if why_not is not None:
                report("failed", why_not)
                return Outcome("unavailable", why_not)
        outcome = await send_message(port, parent.id, text if text is not None else
                                     forward_text(child), report=report, clock=clock,
                                     timeout=timeout, new_id=new_id)
    finally:
        if opened:
            port.close_thread(parent.id)
    return replace(outcome, extra={**outcome.extra, "parent": parent})


async def respond(port: Port, thread_id: str, request_id: str, *, report: Report, clock: Clock,
                  timeout: float, decision: str | None = None,
                  answers: dict[str, Any] | None = None,
                  new_id: IdFactory = new_command_id) -> Outcome:
    """Answer a pending approval (`decision`) or question (`answers`); ok once the stream
    shows the request resolved."""

    def resolved() -> ThreadRow | None:
        row = port.supervisor.row(thread_id, clock())
        gone = row is not None and (row.pending_request is None
                                    or row.pending_request.id != request_id)
        return row if gone else None

    command = RuntimeRequestRespond(command_id=new_id(), thread_id=thread_id,
                                    request_id=request_id, decision=decision, answers=answers)
    what = f"decision {decision}" if decision else "answer"
    return await send_and_confirm(
        port, command, report=report, confirmed=resolved, timeout=timeout,
        doing=f"Sending {what}", done=lambda _: f"request resolved ({what})",
        not_done=f"accepted, but the request was still pending after {timeout:g}s",
    )


async def checkin(port: Port, thread_id: str, *, report: Report, clock: Clock,
                  text: str | None = None, expect: str | None = None,
                  timeout_s: float | None = None, queue_if_busy: bool = True) -> Outcome:
    """Send a check-in and wait for its verdict (`value`): answered is ok, unanswered is
    not_confirmed, busy (not sent) is unavailable; a lost socket is unknown. `None`s take the
    configured text, expected answer and deadline."""
    shown = text if text is not None else "the check-in"
    report("pending", f"check-in sent: {shown!r}" if text is not None else "check-in sent")
    try:
        verdict = await port.checkin(thread_id, text=text, expect=expect, timeout_s=timeout_s,
                                     clock=clock, queue_if_busy=queue_if_busy)
    except ClientError as exc:
        reason = str(exc) or describe(exc)
        report("unknown", f"check-in outcome unknown: {reason}")
        return Outcome("unknown", f"check-in outcome unknown: {reason}", message=reason,
                       command="message.dispatch")
    kind: Kind
    if verdict.verdict == "answered":
        said, kind = f"check-in answered: {verdict.reason}", "ok"
    elif verdict.verdict == "unanswered":
        said, kind = f"check-in unanswered: {verdict.reason}", "not_confirmed"
    else:
        said, kind = f"check-in not sent ({verdict.verdict}): {verdict.reason}", "unavailable"
    report("ok" if kind == "ok" else "failed", said)
    return Outcome(kind, said, value=verdict)
