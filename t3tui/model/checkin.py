"""Check-ins, the pure part: plan the `message.dispatch`, track the deadline, give a verdict."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from t3tui.model.config import DetectorConfig
from t3tui.model.projection import TERMINAL_RUN
from t3tui.model.rows import CREATING, ThreadRow
from t3tui.model.wire import ts


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


def plan_checkin(
    row: ThreadRow,
    *,
    command_id: str,
    message_id: str,
    now: datetime,
    text: str | None = None,
    expect: str | None = None,
    timeout_s: float | None = None,
    queue_if_busy: bool = True,
    config: DetectorConfig | None = None,
) -> CheckInPlan | CheckInVerdict:
    """Decide how to send a check-in to `row`'s thread, or why not (a `busy` verdict).

    `start_immediately` when the thread has no active run; `queue_after_active` when it has
    one (the check-in then answers only after the current run ends); with
    `queue_if_busy=False` a thread with an active run gets `busy` instead.
    """
    from t3tui.protocol import MessageDispatch, QueueAfterActive, StartImmediately

    cfg = config or DetectorConfig()
    if row.origin == "provider_native":
        return CheckInVerdict("busy", row.id, "provider-native child: it cannot receive messages")
    if row.state == CREATING:
        return CheckInVerdict("busy", row.id, "the child thread does not exist yet")
    busy = row.active_run_id is not None or row.activity_run_status is not None
    if busy and not queue_if_busy:
        what = row.activity_run_status or "active"
        return CheckInVerdict("busy", row.id, f"thread is {what} (run {row.active_run_id}); not queueing")
    mode = QueueAfterActive() if busy else StartImmediately()
    body = text if text is not None else cfg.checkin_text
    checkin = CheckIn(
        thread_id=row.id,
        text=body,
        expect=expect if expect is not None else cfg.checkin_expect,
        sent_at=now,
        deadline=now + timedelta(seconds=timeout_s if timeout_s is not None else cfg.checkin_timeout_s),
        message_id=message_id,
        command_id=command_id,
    )
    command = MessageDispatch(
        command_id=command_id, thread_id=row.id, message_id=message_id, text=body, dispatch_mode=mode
    )
    return CheckInPlan(checkin, command, mode.type)


def is_answer(text: Any, expect: str) -> bool:
    """The message text holds the expected answer (what a verdict looks for)."""
    return isinstance(text, str) and expect.casefold() in text.casefold()


def checkin_verdict(
    checkin: CheckIn,
    *,
    now: datetime,
    messages: Iterable[dict[str, Any]] = (),
    latest_visible: dict[str, Any] | None = None,
    rejected: str | None = None,
    runs: Iterable[dict[str, Any]] = (),
) -> CheckInVerdict:
    """Verdict from what the streams show. Times are compared server-to-server when our own
    user message is visible (no clock skew); otherwise against the caller's `sent_at`.

    `runs`: the thread's runs. When the run our message started (or was steered into) ends
    without the answer, nothing will answer any more: `unanswered` at once, not at the deadline.
    """
    if rejected is not None:
        return CheckInVerdict("busy", checkin.thread_id, f"refused by the server: {rejected}")
    msgs = list(messages)
    ours = next((m for m in msgs if m.get("id") == checkin.message_id), None)
    anchor = ts(ours.get("createdAt")) if ours else None
    start = anchor or checkin.sent_at
    answers = []
    # The thread's messages arrive in order, so while they are shown without ours, any answer
    # in them (or in the shell preview) predates our question. Comparing it with our own
    # clock instead would take an earlier check-in's reply from a server whose clock is ahead.
    if ours is not None or not msgs:
        for msg in msgs:
            created = ts(msg.get("createdAt"))
            if msg.get("role") == "assistant" and created and created >= start and is_answer(msg.get("text"), checkin.expect):
                answers.append(created)
        seen = latest_visible or {}
        seen_at = ts(seen.get("updatedAt"))
        if seen.get("role") == "assistant" and seen_at and seen_at >= start and is_answer(seen.get("text"), checkin.expect):
            answers.append(seen_at)
    if answers:
        at = min(answers)
        latency = round((at - start).total_seconds(), 3)
        return CheckInVerdict("answered", checkin.thread_id, f"answered in {latency:g}s", latency, at)
    run = _run_of(checkin, ours, runs)
    if run is not None and run.get("status") in TERMINAL_RUN:
        ended = "completed" if run.get("status") == "completed" else f"ended {run.get('status')}"
        return CheckInVerdict("unanswered", checkin.thread_id,
                              f"run {ended} before answering {checkin.expect!r}")
    if now >= checkin.deadline:
        waited = round((checkin.deadline - checkin.sent_at).total_seconds(), 3)
        return CheckInVerdict("unanswered", checkin.thread_id, f"no {checkin.expect!r} within {waited:g}s")
    left = round((checkin.deadline - now).total_seconds(), 3)
    return CheckInVerdict("pending", checkin.thread_id, f"waiting for {checkin.expect!r} ({left:g}s left)")


def _run_of(checkin: CheckIn, ours: dict[str, Any] | None,
            runs: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The run that carries the check-in: the one our message started, else the one it was
    posted into (a steer into the active run); None while the stream shows neither."""
    by_id: dict[Any, dict[str, Any]] = {}
    for run in runs:
        if run.get("userMessageId") == checkin.message_id:
            return run
        by_id[run.get("id")] = run
    run_id = ours.get("runId") if ours else None
    return by_id.get(run_id) if run_id is not None else None
