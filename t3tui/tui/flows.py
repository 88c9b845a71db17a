"""Action flows: send one command, then read its effect back from the event stream.

No Textual here: each flow reports through a `report(phase, text)` callback, which the app's
worker turns into `ActionUpdate` messages. A flow announces success only when the stream
shows the effect; a command whose answer was lost with the socket is "outcome unknown".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from t3tui.client.errors import ClientError
from t3tui.client.outcome import Accepted, Rejected, new_command_id
from t3tui.model import ThreadRow
from t3tui.protocol.commands import (
    MessageDispatch,
    QueueAfterActive,
    RuntimeRequestRespond,
    StartImmediately,
    ThreadSettle,
)
from t3tui.tui.source import Clock, Source

Report = Callable[[str, str], None]
IdFactory = Callable[[], str]


async def command_flow(
    source: Source,
    command: Any,
    *,
    report: Report,
    confirmed: Callable[[], Any],
    timeout: float,
    doing: str,
    done: Callable[[Any], str],
    not_done: str,
) -> bool:
    """Dispatch `command`, then wait up to `timeout` s for `confirmed()`; True on success."""
    report("pending", f"{doing}…")
    try:
        outcome = await source.dispatch(command, timeout)
    except ClientError as exc:
        report("unknown", f"outcome unknown: {exc}")
        return False
    if isinstance(outcome, Rejected):
        text = f"server refused: {outcome.message}"
        if outcome.detail:
            text += f" ({outcome.detail})"
        report("failed", text)
        return False
    if not isinstance(outcome, Accepted):
        report("unknown", f"outcome unknown: {outcome.reason}")
        return False
    report("pending", f"{doing}… accepted, waiting for the event stream")
    value = await source.wait_until(confirmed, timeout)
    if value:
        report("ok", done(value))
        return True
    report("failed", not_done)
    return False


def _row(source: Source, thread_id: str, clock: Clock) -> ThreadRow | None:
    return source.supervisor.row(thread_id, clock())


async def settle(source: Source, thread_id: str, *, report: Report, clock: Clock,
                 timeout: float, new_id: IdFactory = new_command_id) -> bool:
    def settled() -> bool:
        row = _row(source, thread_id, clock)
        return row is not None and row.settled

    return await command_flow(
        source, ThreadSettle(command_id=new_id(), thread_id=thread_id), report=report,
        confirmed=settled, timeout=timeout, doing="Settling", done=lambda _: "settled",
        not_done=f"accepted, but the stream did not show it settled within {timeout:g}s",
    )


async def respond(source: Source, thread_id: str, request_id: str, *, report: Report,
                  clock: Clock, timeout: float, decision: str | None = None,
                  answers: dict[str, Any] | None = None,
                  new_id: IdFactory = new_command_id) -> bool:
    def resolved() -> bool:
        row = _row(source, thread_id, clock)
        return row is not None and (row.pending_request is None
                                    or row.pending_request.id != request_id)

    command = RuntimeRequestRespond(command_id=new_id(), thread_id=thread_id,
                                    request_id=request_id, decision=decision, answers=answers)
    what = f"decision {decision}" if decision else "answer"
    return await command_flow(
        source, command, report=report, confirmed=resolved, timeout=timeout,
        doing=f"Sending {what}", done=lambda _: f"request resolved ({what})",
        not_done=f"accepted, but the request was still pending after {timeout:g}s",
    )


async def send_message(source: Source, thread_id: str, text: str, *, report: Report,
                       clock: Clock, timeout: float,
                       new_id: IdFactory = new_command_id) -> bool:
    row = _row(source, thread_id, clock)
    busy = row is not None and (row.active_run_id is not None or row.activity_run_status)
    mode = QueueAfterActive() if busy else StartImmediately()
    message_id = new_id()
    command = MessageDispatch(command_id=new_id(), thread_id=thread_id, message_id=message_id,
                              text=text, dispatch_mode=mode)

    def delivered() -> bool:
        return message_id in source.transcripts.get(thread_id).messages

    # Our message shows up on the thread's own stream: keep it subscribed meanwhile.
    opened = source.open_thread(thread_id)
    try:
        queued = " (queued after the active run)" if busy else ""
        return await command_flow(
            source, command, report=report, confirmed=delivered, timeout=timeout,
            doing="Sending message", done=lambda _: f"message delivered{queued}",
            not_done=f"accepted, but the message did not show up within {timeout:g}s",
        )
    finally:
        if opened:
            source.close_thread(thread_id)


async def checkin(source: Source, thread_id: str, *, report: Report, clock: Clock,
                  text: str, expect: str, timeout_s: float) -> bool:
    """Send a check-in and report its verdict (answered / unanswered / busy)."""
    report("pending", f"check-in sent: {text!r}")
    try:
        verdict = await source.checkin(thread_id, text=text, expect=expect,
                                       timeout_s=timeout_s, clock=clock)
    except ClientError as exc:
        report("unknown", f"check-in outcome unknown: {exc}")
        return False
    if verdict.verdict == "answered":
        report("ok", f"check-in answered: {verdict.reason}")
        return True
    if verdict.verdict == "unanswered":
        report("failed", f"check-in unanswered: {verdict.reason}")
    else:
        report("failed", f"check-in not sent ({verdict.verdict}): {verdict.reason}")
    return False
