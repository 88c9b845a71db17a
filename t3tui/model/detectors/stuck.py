"""Stuck detectors (delegation.md §7.1 ranks 1-3, plus unanswered check-ins)."""

from __future__ import annotations

from datetime import datetime

from t3tui.model.config import DetectorConfig
from t3tui.model.context import ThreadContext
from t3tui.model.detectors.common import age, declares, held, human, reached
from t3tui.model.findings import STUCK, Finding
from t3tui.model.wire import iso, latest

RUNNING = ("starting", "running")


@declares(depends=("own.id", "own.activity", "own.provider_turn_ended_at",
                   "own.provider_thread_idle_at", "own.provider_turn_status", "own.active_run_id"),
          dwell="provider_finished_dwell_s")
def provider_finished(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """The provider says the turn is over (or its thread went idle); T3 says running."""
    f = ctx.own
    if f.activity not in RUNNING:
        return []
    ended = f.provider_turn_ended_at or f.provider_thread_idle_at
    if not held(ended, now, config.provider_finished_dwell_s):
        return []
    what = f"provider turn {f.provider_turn_status}" if f.provider_turn_ended_at else "provider thread idle"
    return [Finding(
        STUCK, f.id, "provider-finished-run-running",
        f"{what} {human(age(ended, now))} ago but run {f.active_run_id} is still {f.activity}",
        {"runId": f.active_run_id, "activityRunStatus": f.activity,
         "providerTurnStatus": f.provider_turn_status, "providerFinishedAt": iso(ended),
         "heldSeconds": age(ended, now), "thresholdSeconds": config.provider_finished_dwell_s},
        ended,
    )]


@declares(depends=("own.id", "own.activity", "detaches", "own.run_started_at", "own.run_requested_at",
                   "own.agent_progress_at", "own.active_run_id"),
          dwell="detached_session_dwell_s", quiets=("own.agent_progress_at",))
def session_detached(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """A session this thread runs in was detached by another thread; its run shows no progress."""
    f = ctx.own
    if f.activity is None or not ctx.detaches:
        return []
    detach = max(ctx.detaches, key=lambda d: d.at or now)
    quiet_from = latest(detach.at, f.run_started_at or f.run_requested_at)
    if f.agent_progress_at is not None and quiet_from is not None and f.agent_progress_at > quiet_from:
        return []
    if not held(quiet_from, now, config.detached_session_dwell_s):
        return []
    how = "settled/archived" if detach.inferred else (detach.reason or "detached").rstrip(".")
    return [Finding(
        STUCK, f.id, "session-detached-by-other",
        f"provider session {detach.session_id} was detached by {detach.by_title} ({how}); "
        f"run {f.active_run_id} has shown no progress for {human(age(quiet_from, now))}",
        {"providerSessionId": detach.session_id, "detachedByThreadId": detach.by_thread,
         "detachedAt": iso(detach.at), "detachReason": detach.reason, "inferred": detach.inferred,
         "runId": f.active_run_id, "runStartedAt": iso(f.run_started_at),
         "lastProgressAt": iso(f.agent_progress_at), "heldSeconds": age(quiet_from, now),
         "thresholdSeconds": config.detached_session_dwell_s},
        quiet_from,
    )]


@declares(depends=("own.id", "own.activity", "own.stopped_session", "own.run_started_at",
                   "own.agent_progress_at", "own.active_run_id"),
          dwell="detached_session_dwell_s", quiets=("own.agent_progress_at",))
def session_stopped(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """The thread's provider session is stopped/error while a run is active and quiet."""
    f = ctx.own
    if f.activity is None or f.stopped_session is None:
        return []
    sid, status, since = f.stopped_session
    quiet_from = latest(since, f.run_started_at)
    if f.agent_progress_at is not None and quiet_from is not None and f.agent_progress_at > quiet_from:
        return []
    if not held(quiet_from, now, config.detached_session_dwell_s):
        return []
    return [Finding(
        STUCK, f.id, "provider-session-stopped",
        f"provider session {sid} is {status} while run {f.active_run_id} is {f.activity}",
        {"providerSessionId": sid, "sessionStatus": status, "since": iso(since),
         "runId": f.active_run_id, "heldSeconds": age(quiet_from, now)},
        quiet_from,
    )]


@declares(depends=("own.id", "checkin", "checkin_verdict", "own.agent_progress_at", "detaches",
                   "own.stopped_session", "own.provider_turn_ended_at", "own.provider_thread_idle_at",
                   "own.activity", "own.provider_turn_status", "own.subscribed", "own.active_run_id"),
          quiets=("own.agent_progress_at",))
def checkin_unanswered(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """An unanswered check-in, backed by provider-side evidence and silence since it was sent."""
    f, checkin, verdict = ctx.own, ctx.checkin, ctx.checkin_verdict
    if checkin is None or verdict is None or verdict.verdict != "unanswered":
        return []
    if not reached(checkin.deadline, now):
        return []  # concluded early because its run ended: that thread is not running, so not stuck
    if f.agent_progress_at is not None and f.agent_progress_at > checkin.sent_at:
        return []
    evidence: list[str] = []
    if ctx.detaches:
        evidence.append("provider session detached by " + ", ".join(sorted({d.by_title for d in ctx.detaches})))
    if f.stopped_session:
        evidence.append(f"provider session {f.stopped_session[1]}")
    if f.provider_turn_ended_at or f.provider_thread_idle_at:
        evidence.append("provider finished the turn")
    if f.activity is not None and f.provider_turn_status is None and f.subscribed:
        evidence.append("no provider turn for the active run")
    if not evidence:
        return []
    return [Finding(
        STUCK, f.id, "checkin-unanswered",
        f"check-in {checkin.text!r} unanswered after {human((checkin.deadline - checkin.sent_at).total_seconds())}; "
        + "; ".join(evidence),
        {"messageId": checkin.message_id, "sentAt": iso(checkin.sent_at),
         "deadline": iso(checkin.deadline), "expect": checkin.expect, "providerEvidence": evidence,
         "runId": f.active_run_id, "lastProgressAt": iso(f.agent_progress_at)},
        checkin.deadline,
    )]


@declares(depends=("own.id", "own.activity", "blocked_on", "own.agent_progress_at",
                   "own.shell_updated_at", "own.run_started_at", "own.active_run_id"),
          dwell="no_progress_s", quiets=("own.agent_progress_at", "own.shell_updated_at"))
def no_progress(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """Running with no turn item, provider turn, message or shell change for too long."""
    f = ctx.own
    if f.activity not in RUNNING or ctx.blocked_on:
        return []  # a parent blocked in a wait on a live child is waiting, not silent
    last = f.last_activity_at
    if not held(last, now, config.no_progress_s):
        return []
    return [Finding(
        STUCK, f.id, "no-progress",
        f"running with no progress for {human(age(last, now))}",
        {"runId": f.active_run_id, "lastActivityAt": iso(last),
         "lastAgentProgressAt": iso(f.agent_progress_at), "shellUpdatedAt": iso(f.shell_updated_at),
         "heldSeconds": age(last, now), "thresholdSeconds": config.no_progress_s},
        last,
    )]


@declares(depends=("own.id", "own.activity", "own.activity_since", "own.provider_turn_ended_at",
                   "own.shell_updated_at", "own.active_run_id"),
          dwell="drain_too_long_s", quiets=("own.shell_updated_at",))
def drain_too_long(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """The run sits in `waiting` (post-terminal drain) too long."""
    f = ctx.own
    if f.activity != "waiting":
        return []
    since = f.activity_since or f.provider_turn_ended_at or f.shell_updated_at
    if not held(since, now, config.drain_too_long_s):
        return []
    return [Finding(
        STUCK, f.id, "drain-too-long",
        f"run {f.active_run_id} has been draining (waiting) for {human(age(since, now))}",
        {"runId": f.active_run_id, "waitingSince": iso(since), "heldSeconds": age(since, now),
         "thresholdSeconds": config.drain_too_long_s},
        since,
    )]


RULES = (provider_finished, drain_too_long, session_detached, session_stopped, checkin_unanswered,
         no_progress)


def stuck_findings(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """Every stuck rule that holds. A thread waiting for a human is never stuck."""
    if ctx.own.pending is not None:
        return []
    return [finding for rule in RULES for finding in rule(ctx, config, now)]
