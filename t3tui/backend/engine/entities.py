"""Builders of the projection entities (protocol §8), as wire dicts with every key present."""

from __future__ import annotations

from typing import Any

from t3tui.backend.engine.capabilities import provider_capabilities
from t3tui.backend.engine.ids import new_id


def provider_ref(driver: str, native_id: str | None, strength: str = "strong"
                 ) -> dict[str, Any] | None:
    """An `OrchestrationV2ProviderRef`; the scripted provider's ids are stable, so `strong`."""
    if native_id is None:
        return None
    return {"driver": driver, "nativeId": native_id, "strength": strength}


def app_thread(
    *,
    thread_id: str,
    project_id: str,
    title: str,
    created_by: str,
    creation_source: str,
    instance: str,
    model_selection: dict[str, Any],
    runtime_mode: str,
    interaction_mode: str,
    branch: str | None,
    worktree_path: str | None,
    lineage: dict[str, Any],
    forked_from: dict[str, Any] | None,
    now: str,
) -> dict[str, Any]:
    return {
        "createdBy": created_by,
        "creationSource": creation_source,
        "id": thread_id,
        "projectId": project_id,
        "title": title,
        "providerInstanceId": instance,
        "modelSelection": model_selection,
        "runtimeMode": runtime_mode,
        "interactionMode": interaction_mode,
        "branch": branch,
        "worktreePath": worktree_path,
        "lineage": lineage,
        "forkedFrom": forked_from,
        "activeProviderThreadId": None,
        "createdAt": now,
        "updatedAt": now,
        "archivedAt": None,
        "deletedAt": None,
        "settledOverride": None,
        "settledAt": None,
        "lastVisitedAt": None,
    }


def run(
    *, thread: dict[str, Any], ordinal: int, message_id: str, queue_position: int, now: str,
    restart_of: str | None = None,
) -> dict[str, Any]:
    entity: dict[str, Any] = {
        "id": new_id("run"),
        "threadId": thread["id"],
        "ordinal": ordinal,
        "providerInstanceId": thread["providerInstanceId"],
        "modelSelection": thread["modelSelection"],
        "providerThreadId": None,
        "userMessageId": message_id,
        "rootNodeId": None,
        "activeAttemptId": None,
        "status": "queued",
        "queuePosition": queue_position,
        "requestedAt": now,
        "startedAt": None,
        "completedAt": None,
        "checkpointId": None,
        "contextHandoffId": None,
    }
    if restart_of is not None:
        entity["restartContinuationOfRunId"] = restart_of
    return entity


def message(
    *, thread_id: str, message_id: str, role: str, text: str, created_by: str,
    creation_source: str, run_id: str | None, now: str, streaming: bool = False,
    node_id: str | None = None, delegated_completion: dict[str, Any] | None = None,
) -> dict[str, Any]:
    entity: dict[str, Any] = {
        "createdBy": created_by,
        "creationSource": creation_source,
        "id": message_id,
        "threadId": thread_id,
        "runId": run_id,
        "nodeId": node_id,
        "role": role,
        "text": text,
        "attachments": [],
        "streaming": streaming,
        "createdAt": now,
        "updatedAt": now,
    }
    if delegated_completion is not None:
        entity["delegatedCompletion"] = delegated_completion
    return entity


def turn_item(
    *, item_id: str, item_type: str, thread_id: str, run_id: str | None, ordinal: int,
    status: str, now: str, fields: dict[str, Any], provider_thread_id: str | None = None,
    provider_turn_id: str | None = None, node_id: str | None = None, title: str | None = None,
    native_item_ref: dict[str, Any] | None = None, completed: bool = False,
) -> dict[str, Any]:
    return {
        "type": item_type,
        "id": item_id,
        "threadId": thread_id,
        "runId": run_id,
        "nodeId": node_id,
        "providerThreadId": provider_thread_id,
        "providerTurnId": provider_turn_id,
        "nativeItemRef": native_item_ref,
        "parentItemId": None,
        "ordinal": ordinal,
        "title": title,
        "status": status,
        "startedAt": now,
        "completedAt": now if completed else None,
        "updatedAt": now,
        **fields,
    }


def node(
    *, thread_id: str, run_id: str | None, kind: str, status: str, now: str,
    node_id: str | None = None, parent_node_id: str | None = None,
    root_node_id: str | None = None, provider_thread_id: str | None = None,
    provider_turn_id: str | None = None, runtime_request_id: str | None = None,
) -> dict[str, Any]:
    nid = node_id or new_id("node")
    return {
        "id": nid,
        "threadId": thread_id,
        "runId": run_id,
        "parentNodeId": parent_node_id,
        "rootNodeId": root_node_id or nid,
        "kind": kind,
        "status": status,
        "countsForRun": True,
        "providerThreadId": provider_thread_id,
        "providerTurnId": provider_turn_id,
        "nativeItemRef": None,
        "runtimeRequestId": runtime_request_id,
        "checkpointScopeId": None,
        "startedAt": now,
        "completedAt": None,
    }


def provider_session(*, session_id: str, driver: str, instance: str, cwd: str, model: str,
                     steering: bool, now: str) -> dict[str, Any]:
    return {
        "id": session_id,
        "driver": driver,
        "providerInstanceId": instance,
        "cwd": cwd,
        "model": model or None,
        "capabilities": provider_capabilities(steering=steering),
        "status": "ready",
        "createdAt": now,
        "updatedAt": now,
        "lastError": None,
    }


def checkpoint_scope(*, thread_id: str, run_id: str, node_id: str, provider_thread_id: str,
                     cwd: str, now: str) -> dict[str, Any]:
    """The `root_run` scope a run's checkpoint is captured in."""
    return {
        "id": new_id("scope"),
        "threadId": thread_id,
        "runId": run_id,
        "nodeId": node_id,
        "parentScopeId": None,
        "providerThreadId": provider_thread_id,
        "kind": "root_run",
        "ordinalWithinParent": 0,
        "advancesAppRunCount": True,
        "cwd": cwd,
        "createdAt": now,
    }


def checkpoint(*, thread_id: str, run_id: str, run_ordinal: int | None, scope_id: str,
               node_id: str, now: str) -> dict[str, Any]:
    """The end-of-turn checkpoint (`OrchestrationV2Checkpoint`).

    The backend does not snapshot the filesystem (`appCanCheckpointFilesystem: false`):
    `ref` names the turn and `files` is empty.
    """
    return {
        "id": new_id("checkpoint"),
        "threadId": thread_id,
        "scopeId": scope_id,
        "runId": run_id,
        "nodeId": node_id,
        "parentCheckpointId": None,
        "ordinalWithinScope": 0,
        "appRunOrdinal": run_ordinal,
        "ref": f"refs/t3/checkpoints/{thread_id}/turn/{run_ordinal or run_id}",
        "status": "ready",
        "files": [],
        "capturedAt": now,
    }


def provider_thread(*, thread_id: str, driver: str, instance: str, session_id: str,
                    native: str, ordinal: int, now: str) -> dict[str, Any]:
    return {
        "id": new_id("pthread"),
        "driver": driver,
        "providerInstanceId": instance,
        "providerSessionId": session_id,
        "appThreadId": thread_id,
        "ownerNodeId": None,
        "nativeThreadRef": provider_ref(driver, native),
        "nativeConversationHeadRef": None,
        "firstRunOrdinal": ordinal,
        "lastRunOrdinal": ordinal,
        "handoffIds": [],
        "forkedFrom": None,
        "pendingBackgroundTasks": [],
        "status": "active",
        "createdAt": now,
        "updatedAt": now,
    }


def context_transfer(*, kind: str, source_thread: str, target_thread: str,
                     source_instance: str, target_instance: str, target_run_id: str | None,
                     source_run_id: str | None, now: str) -> dict[str, Any]:
    return {
        "id": new_id("ctx"),
        "type": kind,
        "status": "resolved_portable",
        "sourceThreadId": source_thread,
        "targetThreadId": target_thread,
        "sourcePoint": {"threadId": source_thread, "runId": source_run_id},
        "basePoint": None,
        "sourceProviderInstanceId": source_instance,
        "targetProviderInstanceId": target_instance,
        "targetRunId": target_run_id,
        "resolution": None,
        "createdBy": "system",
        "error": None,
        "createdAt": now,
        "updatedAt": now,
        "consumedAt": None,
    }
