"""Result delivery detectors (delegation.md §7.1 ranks 5 and 6), evaluated on the child."""

from __future__ import annotations

from datetime import datetime

from t3tui.model.config import DetectorConfig
from t3tui.model.context import ThreadContext
from t3tui.model.detectors.common import age, declares, held, human
from t3tui.model.findings import ORPHANED_DELIVERY, UNDELIVERED_RESULT, Finding
from t3tui.model.wire import iso, latest


@declares(depends=("own.id", "task.status", "task.completed_at", "task.delivery", "task.task_id",
                   "task.parent_id", "parent.activity", "parent.pending",
                   "parent.latest_run_requested_at", "parent.title"),
          dwell="undelivered_dwell_s")
def undelivered_result(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """A terminal child whose result is still pending (or long claimed) with no parent run since."""
    task, parent = ctx.task, ctx.parent
    if task is None or parent is None or not task.terminal or task.completed_at is None:
        return []
    if task.delivery == "pending":
        dwell = config.undelivered_dwell_s
    elif task.delivery == "claimed":
        dwell = config.claimed_dwell_s
    else:
        return []
    if parent.own_active:
        return []  # a live parent run may be the wait that owns delivery, or the wake itself
    woke = parent.latest_run_requested_at
    if woke is not None and woke >= task.completed_at:
        return []
    if not held(task.completed_at, now, dwell):
        return []
    return [Finding(
        UNDELIVERED_RESULT, ctx.own.id, "undelivered-result",
        f"finished {human(age(task.completed_at, now))} ago; result {task.delivery} and "
        f"{parent.title} has not run since",
        {"taskId": task.task_id, "parentThreadId": task.parent_id, "delivery": task.delivery,
         "taskStatus": task.status, "completedAt": iso(task.completed_at),
         "parentLatestRunRequestedAt": iso(woke), "heldSeconds": age(task.completed_at, now),
         "thresholdSeconds": dwell},
        task.completed_at,
    )]


@declares(depends=("own.id", "own.activity", "own.pending", "own.has_record", "own.run_started_at",
                   "task.status", "task.run_id", "task.delivery", "task.updated_at", "task.task_id",
                   "task.parent_id", "parent.cohorts"),
          dwell="orphaned_dwell_s")
def wake_disposed(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """The child still works, but its wake was disposed or its cohort is not open."""
    task, parent, own = ctx.task, ctx.parent, ctx.own
    if task is None:
        return []
    live = own.own_active if own.has_record else not task.terminal
    if not live:
        return []
    cohort = parent.cohorts.get(task.run_id) if parent and task.run_id else None
    if task.delivery != "disposed" and cohort in (None, "open"):
        return []
    since = latest(task.updated_at, own.run_started_at)
    if not held(since, now, config.orphaned_dwell_s):
        return []
    why = "its delivery was disposed" if task.delivery == "disposed" else f"the parent run's cohort is {cohort}"
    return [Finding(
        ORPHANED_DELIVERY, own.id, "wake-disposed-while-running",
        f"still working but {why}: the parent will not be told",
        {"taskId": task.task_id, "parentThreadId": task.parent_id, "parentRunId": task.run_id,
         "delivery": task.delivery, "cohortDisposition": cohort,
         "activityRunStatus": own.activity},
        since,
    )]


def delivery_findings(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    return undelivered_result(ctx, config, now) + wake_disposed(ctx, config, now)
