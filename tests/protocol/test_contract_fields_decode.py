"""Fields the strict contract names that the tolerant models lacked (found by
test_wire_truth.py): each sample is first proven valid against the contract, then decoded by
the tolerant model, which must read the field instead of dropping it into the extras or
failing the whole item on a null the contract allows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from t3tui.protocol import ProtocolError, artifacts, errors, providers, stream
from t3tui.protocol.contract import artifacts as c_artifacts
from t3tui.protocol.contract import capabilities as c_capabilities
from t3tui.protocol.contract import entities as c_entities
from t3tui.protocol.contract import rpc as c_rpc
from t3tui.protocol.contract import streams as c_streams
from t3tui.protocol.contract import turn_items as c_turn_items
from t3tui.protocol.contract.check import violations
from t3tui.protocol.turn_items import DynamicToolItem, ErrorItem, decode_turn_item

T0 = "2026-10-04T12:00:00.000Z"
AT = datetime(2026, 10, 4, 12, tzinfo=UTC)


def contract_valid(schema: Any, obj: dict[str, Any]) -> dict[str, Any]:
    assert violations(schema, obj) == []
    return obj


def test_a_checkpoint_and_its_scope_decode_every_contract_field() -> None:
    scope = contract_valid(c_entities.CheckpointScope, {
        "id": "scope-1", "threadId": "t-1", "runId": None, "nodeId": "n-1",
        "parentScopeId": None, "providerThreadId": "pt-1", "kind": "root_run",
        "ordinalWithinParent": 0, "advancesAppRunCount": True, "cwd": "/w", "createdAt": T0})
    decoded_scope = artifacts.CheckpointScope.from_wire(scope)
    assert (decoded_scope.thread_id, decoded_scope.node_id, decoded_scope.provider_thread_id,
            decoded_scope.ordinal_within_parent, decoded_scope.advances_app_run_count,
            decoded_scope.cwd, decoded_scope.created_at) == ("t-1", "n-1", "pt-1", 0, True, "/w", AT)
    checkpoint = contract_valid(c_artifacts.Checkpoint, {
        "id": "cp-1", "threadId": "t-1", "scopeId": "scope-1", "runId": "r-1", "nodeId": "n-1",
        "parentCheckpointId": None, "ordinalWithinScope": 2, "appRunOrdinal": 1,
        "ref": "refs/cp-1", "status": "ready",
        "files": [{"path": "a.py", "kind": "modified", "additions": 1, "deletions": 0}],
        "capturedAt": T0})
    decoded = artifacts.Checkpoint.from_wire(checkpoint)
    assert (decoded.scope_id, decoded.run_id, decoded.ordinal_within_scope,
            decoded.app_run_ordinal, decoded.ref, decoded.captured_at) == (
        "scope-1", "r-1", 2, 1, "refs/cp-1", AT)
    assert decoded.to_wire() == checkpoint  # exactly what came off the wire, nothing in extras
    assert decoded.model_extra == {}


def test_a_context_handoff_decodes_every_contract_field() -> None:
    handoff = contract_valid(c_artifacts.ContextHandoff, {
        "id": "h-1", "threadId": "t-1", "targetRunId": "r-2", "fromProviderThreadIds": ["pt-1"],
        "toProviderThreadId": "pt-2", "coveredRunOrdinals": {"from": 1, "to": 3},
        "strategy": "full_thread_summary", "status": "ready", "summaryMessageId": None,
        "summaryText": "so far", "createdByProviderInstanceId": None,
        "createdAt": T0, "updatedAt": T0})
    decoded = artifacts.ContextHandoff.from_wire(handoff)
    assert decoded.covered_run_ordinals is not None
    assert (decoded.covered_run_ordinals.from_, decoded.covered_run_ordinals.to) == (1, 3)
    assert (decoded.target_run_id, decoded.from_provider_thread_ids, decoded.summary_text,
            decoded.updated_at) == ("r-2", ["pt-1"], "so far", AT)
    assert decoded.model_extra == {}


def test_plans_decode_their_kind_markdown_and_steps() -> None:
    base = {"id": "p-1", "threadId": "t-1", "runId": None, "nodeId": "n-1", "status": "active"}
    proposed = contract_valid(c_artifacts.PlanArtifact,
                              {**base, "kind": "proposed_plan", "markdown": "# plan"})
    todo = contract_valid(c_artifacts.PlanArtifact, {
        **base, "kind": "todo_list", "explanation": "why",
        "steps": [{"id": "s-1", "text": "first", "status": "running"}]})
    plan = artifacts.PlanArtifact.from_wire(proposed)
    assert (plan.kind, plan.markdown) == ("proposed_plan", "# plan")
    todo_plan = artifacts.PlanArtifact.from_wire(todo)
    assert todo_plan.kind == "todo_list" and todo_plan.explanation == "why"
    assert todo_plan.steps is not None
    assert [(s.id, s.text, s.status) for s in todo_plan.steps] == [("s-1", "first", "running")]


def test_a_turns_own_token_usage_decodes_its_scope_and_status() -> None:
    usage = contract_valid(c_entities.TurnTokenUsage, {
        "usageScope": "main_agent", "usageStatus": "complete", "inputTokens": 10,
        "outputTokens": 5, "reasoningTokens": 2, "hasSubagents": False})
    turn = providers.ProviderTurn.from_wire({
        "id": "turn-1", "providerThreadId": "pt-1", "nodeId": "n-1", "ordinal": 1,
        "status": "completed", "turnTokenUsage": usage})
    assert turn.turn_token_usage is not None
    got = turn.turn_token_usage
    assert (got.usage_scope, got.usage_status, got.input_tokens, got.output_tokens,
            got.reasoning_tokens, got.has_subagents) == ("main_agent", "complete", 10, 5, 2, False)
    assert got.model_extra == {}


def test_capability_flags_the_contract_names_are_read() -> None:
    sessions = contract_valid(c_capabilities.SessionCapabilities, {
        "supportsMultipleProviderThreadsPerSession": False, "supportsModelSwitchInSession": True,
        "supportsProviderSwitchingViaHandoff": False, "supportsRuntimeModeSwitchInSession": True,
        "pendingRequestsSurviveRestart": False})
    turns = contract_valid(c_capabilities.TurnCapabilities, {
        "exposesNativeTurnId": True, "emitsTurnStarted": True, "emitsTurnCompleted": False,
        "supportsInterrupt": True, "supportsActiveSteering": False,
        "supportsSteeringByInterruptRestart": False, "supportsQueuedMessages": True,
        "terminalStatusQuality": "strong"})
    subagents = contract_valid(c_capabilities.SubagentCapabilities, {
        "supportsSubagents": True, "exposesSubagentThreadIds": True,
        "emitsSubagentLifecycle": True, "canWaitForSubagents": False,
        "canCloseSubagents": True, "canForkSubagentThread": False})
    s = providers.SessionCapabilities.from_wire(sessions)
    t = providers.TurnCapabilities.from_wire(turns)
    a = providers.SubagentCapabilities.from_wire(subagents)
    assert (s.supports_model_switch_in_session, s.pending_requests_survive_restart) == (True, False)
    assert (t.exposes_native_turn_id, t.emits_turn_completed) == (True, False)
    assert (a.exposes_subagent_thread_ids, a.can_close_subagents) == (True, True)
    assert s.model_extra == t.model_extra == a.model_extra == {}


def _item(**fields: Any) -> dict[str, Any]:
    return {"id": "i-1", "threadId": "t-1", "runId": "r-1", "nodeId": "n-1",
            "providerThreadId": None, "providerTurnId": None, "nativeItemRef": None,
            "parentItemId": None, "ordinal": 0, "status": "failed", "title": None,
            "startedAt": None, "completedAt": None, "updatedAt": T0, **fields}


def test_turn_items_with_the_nulls_the_contract_allows_decode() -> None:
    error = contract_valid(c_turn_items.ErrorItem, _item(
        type="error", failure={"class": "provider_error", "message": "boom", "code": None,
                               "retryable": None},
        retry={"attempt": 1, "maxAttempts": None, "retryDelayMs": None}))
    tool = contract_valid(c_turn_items.DynamicTool, _item(
        type="dynamic_tool", toolName=None, input={}))
    try:
        decoded_error, decoded_tool = decode_turn_item(error), decode_turn_item(tool)
    except ProtocolError as exc:  # what a null here did before
        raise AssertionError(f"a contract-valid turn item failed to decode: {exc}") from None
    assert isinstance(decoded_error, ErrorItem) and decoded_error.retry is not None
    assert decoded_error.failure.retryable is None
    assert (decoded_error.retry.max_attempts, decoded_error.retry.retry_delay_ms) == (None, None)
    assert isinstance(decoded_tool, DynamicToolItem) and decoded_tool.tool_name is None


def test_an_rpc_errors_cause_and_the_snapshot_items_roots_are_read() -> None:
    error = contract_valid(c_rpc.DispatchCommandError, {
        "_tag": "OrchestrationV2DispatchCommandError", "commandId": "c-1",
        "commandType": "thread.settle", "message": "no", "cause": {"why": 1}})
    assert errors.decode_rpc_error(error).cause == {"why": 1}
    item = contract_valid(c_streams.ShellSnapshotItem, {
        "kind": "snapshot", "snapshot": {"schemaVersion": 1, "snapshotSequence": 3, "projects": [],
                                      "threads": [], "archivedThreads": []},
        "resolvedRepositoryIdentityRoots": ["/repo"]})
    decoded = stream.decode_shell_item(item)
    assert isinstance(decoded, stream.ShellSnapshotItem)
    assert decoded.resolved_repository_identity_roots == ["/repo"]
