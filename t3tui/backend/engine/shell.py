"""The V2 thread shell row (protocol §7), derived from a thread's projection."""

from __future__ import annotations

from typing import Any

from t3tui.backend.engine.projection import ACTIVE_RUN, ThreadState

_ACTIVITY = frozenset({"preparing", "starting", "running", "waiting"})


def _active_run(state: ThreadState) -> dict[str, Any] | None:
    executing = state.executing_run()
    if executing is not None:
        return executing
    queued = state.queued_runs()
    return queued[0] if queued else None


def _last_error(state: ThreadState, latest: dict[str, Any] | None) -> str | None:
    if latest is None or latest["status"] != "failed":
        return None
    errors = [
        i
        for i in state.coll["turnItems"].values()
        if i["type"] == "error" and i.get("runId") == latest["id"]
    ]
    if errors:
        return (errors[-1].get("failure") or {}).get("message")
    return "Run failed."


def shell_row(state: ThreadState) -> dict[str, Any]:
    """The full shell row for this thread (wire dict)."""
    thread = state.thread or {}
    latest = state.latest_run()
    active = _active_run(state)
    pending = state.pending_requests()
    messages = [m for m in state.coll["messages"].values() if m.get("text")]
    user_messages = [m for m in messages if m.get("role") == "user"]
    items = state.coll["turnItems"]
    row = dict(thread)
    row.update(
        {
            "latestRunId": latest["id"] if latest else None,
            "latestRunRequestedAt": latest.get("requestedAt") if latest else None,
            "latestRunStartedAt": latest.get("startedAt") if latest else None,
            "latestRunCompletedAt": latest.get("completedAt") if latest else None,
            "activeRunId": active["id"] if active else None,
            "activityRunStatus": active["status"]
            if active and active["status"] in _ACTIVITY
            else None,
            "status": latest["status"] if latest else "idle",
            "lastError": _last_error(state, latest),
            "pendingRuntimeRequest": (
                {
                    "id": pending[0]["id"],
                    "kind": pending[0].get("kind"),
                    "createdAt": pending[0].get("createdAt"),
                }
                if pending
                else None
            ),
            "latestVisibleMessage": (
                {
                    "id": messages[-1]["id"],
                    "role": messages[-1].get("role"),
                    "text": messages[-1]["text"],
                    "updatedAt": messages[-1].get("updatedAt"),
                }
                if messages
                else None
            ),
            "latestUserMessageAt": user_messages[-1].get("createdAt") if user_messages else None,
            "hasActionableProposedPlan": False,
            "pendingBackgroundTasks": [],
            "itemCount": len(items),
            "visibleItemCount": len(items),
            "updatedAt": state.updated_at or thread.get("updatedAt"),
        }
    )
    return row


def is_busy(state: ThreadState) -> bool:
    """Active or blocked work: T3's settle guard (protocol §10.2, earlier V2 rule)."""
    return any(r["status"] in ACTIVE_RUN for r in state.coll["runs"].values()) or bool(
        state.pending_requests()
    )
