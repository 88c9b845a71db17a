"""The `t3tui status --json` document (docs/STATUS_JSON.md) and the exit-code rule."""

from __future__ import annotations

from typing import Any

from t3tui.model.findings import Finding
from t3tui.model.rows import SupervisorView, TaskInfo, ThreadRow
from t3tui.model.wire import iso

SCHEMA_VERSION = 1


def exit_code(view: SupervisorView) -> int:
    """0 when nothing is flagged, 1 when any finding holds (stuck, serialized, phantom, ...)."""
    return 1 if view.findings else 0


def finding_json(f: Finding) -> dict[str, Any]:
    return {"kind": f.kind, "threadId": f.thread_id, "rule": f.rule, "reason": f.reason,
            "evidence": f.evidence, "since": iso(f.since)}


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


def status_document(view: SupervisorView) -> dict[str, Any]:
    return {
        "schemaVersion": SCHEMA_VERSION,
        "generatedAt": iso(view.now),
        "synchronized": view.synchronized,
        "counts": dict(view.counts),
        "threads": [thread_json(r) for r in view.rows],
        "findings": [finding_json(f) for f in view.findings],
        "exitCode": exit_code(view),
    }
