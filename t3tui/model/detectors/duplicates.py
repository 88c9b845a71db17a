"""Duplicate children (delegation.md §6.1 and §7.2 rank 5; T3 #11168), evaluated on the parent.

A `delegate_task` wait that outlives the agent client's own tool ceiling dies without a taskId;
the agent, never told which task it started, delegates the same work again. Evidence needs the
dead call: two same-title children made on purpose (parallel `async` calls) never fire.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from t3tui.model.config import DetectorConfig
from t3tui.model.context import ThreadContext
from t3tui.model.detectors.common import declares
from t3tui.model.facts import TaskFacts
from t3tui.model.findings import DUPLICATE_CHILD, Finding
from t3tui.model.projection import ToolCall
from t3tui.model.wire import iso


def _norm(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


def _same_text(a: str | None, b: str | None) -> bool:
    """The same task text; a role preamble the server prepends is allowed on either side."""
    na, nb = _norm(a), _norm(b)
    return bool(na and nb) and (na == nb or na.endswith(nb) or nb.endswith(na))


def _same_work(task: TaskFacts, title: str | None, text: str | None) -> bool:
    """Same title (when both have one) and the same task text (when both are known)."""
    if title and task.title and _norm(title) != _norm(task.title):
        return False
    if text and task.prompt:
        return _same_text(text, task.prompt)
    return bool(title and task.title)


def _matched_by(first: TaskFacts, later: TaskFacts, call: ToolCall) -> str | None:
    crid, again = first.client_request_id, later.client_request_id
    if crid and again and again != crid and again.startswith(crid):
        return "clientRequestId prefix"
    if _same_work(later, call.title or first.title, call.task or first.prompt):
        return "title and task"
    return None


def duplicate_pairs(ctx: ThreadContext, config: DetectorConfig
                    ) -> list[tuple[ToolCall, TaskFacts, TaskFacts, str]]:
    """(dead wait, the task it created, the later duplicate, how they match)."""
    if not ctx.own.dead_waits:
        return []  # no wait died (most threads): no task list to sort
    tasks = [t for t in ctx.own.tasks if t.started_at is not None]
    tol = timedelta(seconds=config.duplicate_tolerance_s)
    out = []
    for call in ctx.own.dead_waits:
        if call.started_at is None or call.completed_at is None:
            continue
        created = [t for t in tasks if call.started_at - tol <= t.started_at <= call.completed_at
                   and (t.client_request_id == call.client_request_id if call.client_request_id
                        else _same_work(t, call.title, call.task))]
        if not created:
            continue
        first = min(created, key=lambda t: (t.started_at, t.task_id))
        for later in sorted(tasks, key=lambda t: (t.started_at, t.task_id)):
            if later is first or later.started_at < call.completed_at - tol:
                continue
            how = _matched_by(first, later, call)
            if how is not None:
                out.append((call, first, later, how))
                break
    return out


@declares(depends=("own.id", "own.dead_waits", "own.tasks"))
def duplicate_child(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """The parent delegated the same work again after a wait died without returning a taskId."""
    pairs = duplicate_pairs(ctx, config)
    if not pairs:
        return []
    call, first, later, how = pairs[0]
    name = first.title or first.client_request_id or first.task_id
    evidence: dict[str, Any] = {
        "firstTaskId": first.task_id, "firstCreatedAt": iso(first.started_at),
        "duplicateTaskId": later.task_id, "duplicateCreatedAt": iso(later.started_at),
        "deadWaitItemId": call.item_id, "deadWaitStartedAt": iso(call.started_at),
        "deadWaitEndedAt": iso(call.completed_at), "matchedBy": how,
        "pairs": [{"firstTaskId": f.task_id, "duplicateTaskId": d.task_id,
                   "deadWaitItemId": c.item_id} for c, f, d, _ in pairs],
    }
    gap = (later.started_at - first.started_at).total_seconds() if later.started_at and first.started_at else 0
    more = f" (+{len(pairs) - 1} more)" if len(pairs) > 1 else ""
    return [Finding(
        DUPLICATE_CHILD, ctx.own.id, "duplicate-child",
        f"delegated \"{name}\" twice, {int(gap)}s apart: the wait on the first ended without "
        f"returning a taskId, so the agent asked again{more}; both children do the same work",
        evidence, later.started_at,
    )]


def duplicate_findings(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    return duplicate_child(ctx, config, now)
