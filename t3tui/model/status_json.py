"""The `t3tui status --json` document (docs/STATUS_JSON.md) and the exit-code rule."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from t3tui.model.findings import Finding
from t3tui.model.remedy import remedy
from t3tui.model.rows import STATES, SupervisorView, TaskInfo, ThreadRow, Watching
from t3tui.model.wire import iso

SCHEMA_VERSION = 1


def exit_code(view: SupervisorView) -> int:
    """The process exit code for a view: the rule is `SupervisorView.exit_code`'s."""
    return view.exit_code


def finding_json(f: Finding) -> dict[str, Any]:
    return {"kind": f.kind, "threadId": f.thread_id, "rule": f.rule, "reason": f.reason,
            "evidence": f.evidence, "since": iso(f.since), "remedy": remedy(f)}


def _task_json(t: TaskInfo | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {"taskId": t.task_id, "parentThreadId": t.parent_thread_id, "parentRunId": t.parent_run_id,
            "clientRequestId": t.client_request_id, "mode": t.mode,
            "completionWake": t.completion_wake, "timeoutMs": t.timeout_ms,
            "waitResult": t.wait_result, "waitReturnedAt": iso(t.wait_returned_at),
            "status": t.status, "delivery": t.delivery, "startedAt": iso(t.started_at),
            "completedAt": iso(t.completed_at)}


def thread_json(r: ThreadRow) -> dict[str, Any]:
    pending = r.pending_request
    return {
        "id": r.id, "title": r.title, "parentId": r.parent_id, "depth": r.depth,
        "state": r.state, "stateReason": r.state_reason, "stateSince": iso(r.state_since),
        "runStatus": r.run_status, "activityRunStatus": r.activity_run_status,
        "activeRunId": r.active_run_id, "settled": r.settled, "children": list(r.children),
        "origin": r.origin, "provider": r.provider, "model": r.model, "orphan": r.orphan,
        "overlays": list(r.overlays), "task": _task_json(r.task),
        "pendingRequest": None if pending is None else
        {"id": pending.id, "kind": pending.kind, "createdAt": iso(pending.created_at)},
        "lastActivityAt": iso(r.last_activity_at),
        "findings": [f.rule for f in r.findings],
    }


def status_document(view: SupervisorView, url: str | None = None) -> dict[str, Any]:
    """One server (`--url`): its environment has no name."""
    return {
        "schemaVersion": SCHEMA_VERSION,
        "generatedAt": iso(view.now),
        "synchronized": view.synchronized,
        "counts": dict(view.counts),
        "environments": [environment_json(EnvironmentStatus(None, url, view))],
        "threads": [{**thread_json(r), "environment": None} for r in view.rows],
        "findings": [{**finding_json(f), "environment": None} for f in view.findings],
        "exitCode": exit_code(view),
    }


EXIT_UNREACHABLE = 2


@dataclass(frozen=True)
class EnvironmentStatus:
    """One environment of `t3tui status --env ...`: its view, or why there is none."""

    name: str | None
    url: str | None
    view: SupervisorView | None
    error: str | None = None


def environment_json(env: EnvironmentStatus) -> dict[str, Any]:
    view = env.view
    return {"name": env.name, "url": env.url, "connected": view is not None,
            "error": env.error, "synchronized": view.synchronized if view else False,
            "counts": dict(view.counts) if view else None,
            "threads": len(view.rows) if view else 0,
            "findings": len(view.findings) if view else 0,
            "watching": _watching_json(view.watching if view else None)}


def _watching_json(w: Watching | None) -> dict[str, int] | None:
    """Threads with activity and how many have their stream held (null: none was asked)."""
    if w is None:
        return None
    return {"active": w.active, "watched": w.watched, "unwatched": w.unwatched, "cap": w.cap}


def environments_exit_code(envs: Sequence[EnvironmentStatus]) -> int:
    """2 when an environment could not be reached (the others are still reported), else
    1 when any finding holds, else 0."""
    if any(e.view is None for e in envs):
        return EXIT_UNREACHABLE
    return max((exit_code(e.view) for e in envs if e.view is not None), default=0)


def environments_document(envs: Sequence[EnvironmentStatus], now: datetime) -> dict[str, Any]:
    """Several environments (`--env`): threads and findings keep their servers' ids and
    carry the environment's name."""
    reached = [(e.name, e.view) for e in envs if e.view is not None]
    counts: dict[str, int] = dict.fromkeys(STATES, 0)
    for _, view in reached:
        for state, n in view.counts.items():
            counts[state] = counts.get(state, 0) + n
    # strongest first, as one view ranks its own; stable for equal ranks
    findings = sorted(((f, name) for name, view in reached for f in view.findings),
                      key=lambda pair: pair[0].rank)
    return {
        "schemaVersion": SCHEMA_VERSION,
        "generatedAt": iso(now),
        "synchronized": all(e.view is not None and e.view.synchronized for e in envs),
        "counts": counts,
        "environments": [environment_json(e) for e in envs],
        "threads": [{**thread_json(r), "environment": name}
                    for name, view in reached for r in view.rows],
        "findings": [{**finding_json(f), "environment": name} for f, name in findings],
        "exitCode": environments_exit_code(envs),
    }

