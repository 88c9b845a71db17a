"""Wire-shaped entities and stream items (t3-protocol.md) for the model's frame fixtures."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

from t3tui.backend.engine.capabilities import provider_capabilities

T0 = datetime(2026, 10, 4, 12, 0, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    t = at(seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def task_ids(client_request_id: str, namespace: str = "sess-1") -> tuple[str, str]:
    """(taskId, childThreadId) derived as delegation.md §3.4 describes."""
    command = quote(f"command:mcp:{namespace}:delegate-task:{client_request_id}", safe="")
    return f"node:delegated-task:{command}", f"thread:delegated-task:{command}"


def lineage(parent: str | None, relationship: str | None = "subagent",
            own_id: str | None = None) -> dict[str, Any]:
    """A top-level thread is its own root; a child names its parent (the fixtures are shallow)."""
    return {"parentThreadId": parent, "relationshipToParent": relationship if parent else None,
            "rootThreadId": parent or own_id}


def app_thread(tid: str, title: str, created: float, parent: str | None = None,
               relationship: str = "subagent", settled_at: float | None = None,
               archived_at: float | None = None, updated: float | None = None) -> dict[str, Any]:
    child = parent is not None and relationship == "subagent"
    return {
        "createdBy": "agent" if child else "user",
        "creationSource": "mcp" if child else "web",
        "id": tid, "projectId": "project-1", "title": title, "providerInstanceId": "codex",
        "modelSelection": {"instanceId": "codex", "model": "gpt-5"},
        "runtimeMode": "full-access", "interactionMode": "default",
        "branch": "main", "worktreePath": "/home/user/project",
        "lineage": lineage(parent, relationship, tid),
        "forkedFrom": None, "activeProviderThreadId": None,
        "createdAt": iso(created), "updatedAt": iso(updated if updated is not None else created),
        "archivedAt": iso(archived_at), "deletedAt": None,
        "settledOverride": "settled" if settled_at is not None else None,
        "settledAt": iso(settled_at), "lastVisitedAt": None,
    }


def shell_row(tid: str, title: str, created: float, *, parent: str | None = None,
              relationship: str = "subagent", updated: float | None = None,
              status: str = "idle", activity: str | None = None, run: str | None = None,
              requested: float | None = None, started: float | None = None,
              completed: float | None = None, active: bool | None = None,
              settled_at: float | None = None, archived_at: float | None = None,
              pending: dict[str, Any] | None = None, message: dict[str, Any] | None = None,
              background: int = 0) -> dict[str, Any]:
    row = app_thread(tid, title, created, parent, relationship, settled_at, archived_at, updated)
    live = activity is not None if active is None else active
    row.update({
        "latestRunId": run, "latestRunRequestedAt": iso(requested),
        "latestRunStartedAt": iso(started), "latestRunCompletedAt": iso(completed),
        "activeRunId": run if live else None, "activityRunStatus": activity,
        "status": status, "lastError": None, "pendingRuntimeRequest": pending,
        "latestVisibleMessage": message, "latestUserMessageAt": iso(requested),
        "hasActionableProposedPlan": False,
        "pendingBackgroundTasks": [{"taskId": f"bg-{i}"} for i in range(background)],
        "itemCount": 0, "visibleItemCount": 0,
    })
    return row


def run(rid: str, tid: str, ordinal: int, status: str, requested: float,
        started: float | None = None, completed: float | None = None,
        pthread: str | None = None, cohort: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": rid, "threadId": tid, "ordinal": ordinal, "providerInstanceId": "codex",
        "modelSelection": {"instanceId": "codex", "model": "gpt-5"},
        "providerThreadId": pthread, "userMessageId": f"msg-{rid}", "rootNodeId": f"node-{rid}",
        "activeAttemptId": f"att-{rid}", "status": status, "requestedAt": iso(requested),
        "startedAt": iso(started), "completedAt": iso(completed), "checkpointId": None,
        "contextHandoffId": None,
    }
    if cohort is not None:
        body["delegatedCompletion"] = {"disposition": cohort, "nextGeneration": 1, "delivery": None}
    return body


def attempt(rid: str, started: float, pthread: str, status: str = "running",
            completed: float | None = None) -> dict[str, Any]:
    return {"id": f"att-{rid}", "runId": rid, "attemptOrdinal": 1, "rootNodeId": f"node-{rid}",
            "providerInstanceId": "codex", "providerThreadId": pthread, "providerTurnId": None,
            "reason": "initial", "status": status, "startedAt": iso(started),
            "completedAt": iso(completed)}


def provider_turn(turn_id: str, rid: str, pthread: str, status: str, started: float,
                  completed: float | None = None, usage_at: float | None = None,
                  ordinal: int = 1) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": turn_id, "providerThreadId": pthread, "nodeId": f"node-{rid}",
        "runAttemptId": f"att-{rid}", "nativeTurnRef": None, "ordinal": ordinal,
        "status": status, "startedAt": iso(started), "completedAt": iso(completed),
    }
    if usage_at is not None:
        body["tokenUsage"] = {"usedTokens": 1000, "updatedAt": iso(usage_at)}
    return body


def provider_thread(ptid: str, tid: str, session: str | None, status: str,
                    updated: float) -> dict[str, Any]:
    return {"id": ptid, "driver": "codex", "providerInstanceId": "codex",
            "providerSessionId": session, "appThreadId": tid, "ownerNodeId": None,
            "nativeThreadRef": None, "nativeConversationHeadRef": None, "firstRunOrdinal": 1,
            "lastRunOrdinal": 1, "handoffIds": [], "forkedFrom": None,
            "pendingBackgroundTasks": [], "status": status, "createdAt": iso(0),
            "updatedAt": iso(updated)}


def provider_session(sid: str, status: str, updated: float) -> dict[str, Any]:
    return {"id": sid, "driver": "codex", "providerInstanceId": "codex", "cwd": "/home/user/project",
            "model": "gpt-5", "capabilities": provider_capabilities(steering=True),
            "status": status, "createdAt": iso(0), "updatedAt": iso(updated), "lastError": None}


def subagent(task_id: str, parent: str, rid: str, child: str | None, title: str, *,
             wake: str | None, status: str, started: float, completed: float | None = None,
             updated: float | None = None, delivery: str | None = None,
             origin: str = "app_owned") -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": task_id, "threadId": parent, "runId": rid, "parentNodeId": f"node-{rid}",
        "origin": origin, "createdBy": "agent", "driver": "codex", "providerInstanceId": "codex",
        "providerThreadId": None, "childThreadId": child, "nativeTaskRef": None,
        "prompt": f"{title}: do the work", "title": title, "model": "gpt-5", "status": status,
        "result": None, "startedAt": iso(started), "completedAt": iso(completed),
        "updatedAt": iso(updated if updated is not None else (completed or started)),
    }
    if wake is not None:
        body["completionWake"] = wake
    if delivery is not None:
        body["completionDelivery"] = {"state": delivery, "observedByRunId": None}
    return body


def message(mid: str, tid: str, rid: str | None, role: str, text: str, created: float,
            updated: float | None = None, streaming: bool = False) -> dict[str, Any]:
    return {"createdBy": "agent" if role == "assistant" else "user",
            "creationSource": "provider" if role == "assistant" else "web",
            "id": mid, "threadId": tid, "runId": rid, "nodeId": None, "role": role, "text": text,
            "attachments": [], "streaming": streaming, "createdAt": iso(created),
            "updatedAt": iso(updated if updated is not None else created)}


def turn_item(item_id: str, tid: str, rid: str, kind: str, started: float, updated: float,
              status: str = "completed", completed: float | None = None, **extra: Any) -> dict[str, Any]:
    body = {"id": item_id, "threadId": tid, "runId": rid, "nodeId": None, "providerThreadId": None,
            "providerTurnId": None, "nativeItemRef": None, "parentItemId": None, "ordinal": 1,
            "title": None, "startedAt": iso(started), "completedAt": iso(completed),
            "updatedAt": iso(updated), "status": status, "type": kind}
    body.update(extra)
    return body


def runtime_request(req_id: str, kind: str, status: str, created: float) -> dict[str, Any]:
    return {"id": req_id, "nodeId": f"node-{req_id}", "providerTurnId": None, "nativeRequestRef": None,
            "kind": kind, "status": status, "responseCapability": {"type": "message"},
            "createdAt": iso(created), "resolvedAt": None}


def transfer(xid: str, kind: str, source: str, target: str, created: float) -> dict[str, Any]:
    return {"id": xid, "type": kind, "sourceThreadId": source, "targetThreadId": target,
            "sourcePoint": {"threadId": source}, "basePoint": None,
            "sourceProviderInstanceId": "codex", "targetProviderInstanceId": "codex",
            "targetRunId": None, "resolution": None, "createdBy": "agent", "error": None,
            "status": "consumed", "createdAt": iso(created), "updatedAt": iso(created),
            "consumedAt": None}
