"""Every JSON example of t3-protocol.md decodes to the right type and re-encodes unchanged."""

import json

import pytest
from rich.pretty import pretty_repr

from t3tui import protocol as p

from .conftest import DECODERS, example, load_examples

EXAMPLES = load_examples()


@pytest.mark.parametrize("ex", EXAMPLES, ids=[f"{e['section']} {e['name']}" for e in EXAMPLES])
def test_round_trip(ex: dict) -> None:
    decoded = DECODERS[ex["decoder"]](ex["json"])
    assert decoded.to_wire() == ex["json"]


def test_fixture_covers_the_documented_literals() -> None:
    literal = [e for e in EXAMPLES if not e["filled"]]
    assert len(literal) >= 44  # every parseable JSON example in the doc
    assert {e["decoder"] for e in EXAMPLES} == set(DECODERS)


def test_child_row_fields() -> None:
    item = p.decode_shell_item(example("thread.updated delegated child row"))
    assert isinstance(item, p.ThreadUpdated)
    row = item.thread
    assert row.lineage.relationship_to_parent == "subagent"
    assert row.subagent_parent_id == "thread-parent"
    assert isinstance(row.forked_from, p.ForkedFromNode)
    assert row.forked_from.node_id.startswith("node:delegated-task:")
    assert (row.status, row.activity_run_status, row.active_run_id) == ("running", "running", "run-c1")
    assert row.pending_runtime_request is None and row.pending_background_tasks == []
    assert row.latest_visible_message is not None
    assert row.latest_visible_message.text == "Reading the diff…"
    assert row.updated_at is not None and row.updated_at.utcoffset().total_seconds() == 0


def test_run_event_is_typed() -> None:
    item = p.decode_thread_item(example("run.updated event"))
    assert isinstance(item, p.ThreadEventItem) and item.sequence == 9006
    assert item.event.known and isinstance(item.event.payload, p.Run)
    assert item.event.payload.active and not item.event.payload.terminal
    assert item.event.payload.completed_at is None


def test_subagent_event_is_typed() -> None:
    event = p.decode_thread_item(example("subagent.updated event")).event
    sub = event.payload
    assert isinstance(sub, p.Subagent)
    assert (sub.origin, sub.completion_wake, sub.status) == ("app_owned", "always", "running")
    assert sub.child_thread_id is not None and sub.child_thread_id.startswith("thread:delegated-task:")


def test_detached_event_is_typed() -> None:
    payload = p.decode_thread_item(example("provider-session.detached event")).event.payload
    assert isinstance(payload, p.ProviderSessionDetached)
    assert (payload.provider_session_id, payload.reason) == ("psess-1", "Thread settled.")


EXPECTED_PAYLOADS = {
    "thread.settled": p.AppThread,
    "run.created": p.Run,
    "run-attempt.updated": p.RunAttempt,
    "node.updated": p.ExecutionNode,
    "provider-session.attached": p.ProviderSession,
    "provider-thread.updated": p.ProviderThread,
    "provider-turn.updated": p.ProviderTurn,
    "runtime-request.updated": p.RuntimeRequest,
    "message.updated": p.ConversationMessage,
    "turn-item.updated": p.turn_items.ApprovalRequestItem,
    "plan.updated": p.PlanArtifact,
    "checkpoint-scope.created": p.CheckpointScope,
    "checkpoint.captured": p.Checkpoint,
    "checkpoint.rollback-requested": p.CheckpointRollbackRequested,
    "context-handoff.updated": p.ContextHandoff,
    "context-transfer.created": p.ContextTransfer,
}


@pytest.mark.parametrize("etype", sorted(EXPECTED_PAYLOADS))
def test_known_event_payload_types(etype: str) -> None:
    item = p.decode_thread_item(example(f"{etype} event"))
    assert item.event.type == etype and item.event.known
    assert type(item.event.payload) is EXPECTED_PAYLOADS[etype]


def test_every_documented_event_type_is_known() -> None:
    documented = {
        *p.THREAD_EVENT_TYPES,
        "run.created", "run.updated", "run-attempt.created", "run-attempt.updated",
        "node.updated", "subagent.updated", "provider-session.attached",
        "provider-session.updated", "provider-session.detached", "provider-thread.updated",
        "provider-turn.updated", "runtime-request.updated", "message.updated",
        "turn-item.updated", "plan.updated", "checkpoint-scope.created", "checkpoint.captured",
        "checkpoint.rollback-requested", "context-handoff.updated", "context-transfer.created",
        "context-transfer.updated",
    }  # fmt: skip
    assert documented == set(p.KNOWN_EVENT_TYPES)
    assert len(p.THREAD_EVENT_TYPES) == 18


def test_full_projection() -> None:
    item = p.decode_thread_item(example("thread snapshot (full projection)"))
    assert isinstance(item, p.ThreadSnapshotItem) and item.snapshot_sequence == 9001
    proj = item.projection
    assert proj.thread is not None and proj.thread.id == "thread-parent"
    assert proj.runs[0].delegated_completion is not None
    assert proj.runs[0].delegated_completion.delivery is not None
    assert proj.runs[0].delegated_completion.delivery.task_ids == ["node:delegated-task:a"]
    session = proj.provider_sessions[0]
    assert session.shares_threads
    assert session.capabilities.turns is not None
    assert session.capabilities.turns.terminal_status_quality == "strong"
    assert proj.provider_turns[0].token_usage is not None
    assert proj.provider_turns[0].token_usage.used_tokens == 12000
    assert proj.subagents[1].completion_delivery is not None
    assert proj.subagents[1].completion_delivery.state == "delivered"
    assert isinstance(proj.runtime_requests[0].response_capability, p.requests.LiveResponse)
    assert isinstance(proj.runtime_requests[2].response_capability, p.requests.NotResumableResponse)
    assert proj.messages[1].delegated_completion is not None
    assert proj.context_transfers[0].type == "subagent_spawn"


def test_every_turn_item_type_decodes_to_its_class() -> None:
    proj = p.decode_thread_item(example("thread snapshot (full projection)")).projection
    by_type = {item.type: item for item in proj.turn_items}
    for type_, cls in p.turn_items.TURN_ITEM_TYPES.items():
        assert type(by_type[type_]) is cls, type_
    unknown = by_type["hologram"]
    assert isinstance(unknown, p.UnknownTurnItem) and unknown.model_extra == {"beam": "on"}
    assert isinstance(proj.visible_turn_items[1].item, p.UnknownTurnItem)
    error = by_type["error"]
    assert error.failure.failure_class == "provider_error"


def test_exit_and_errors() -> None:
    (msg,) = p.decode_server_frame(json.dumps(example("exit fail dispatch error")))
    assert isinstance(msg, p.Exit) and not msg.ok
    (cause,) = msg.exit.cause
    assert isinstance(cause, p.Fail)
    err = cause.typed
    assert isinstance(err, p.OrchestrationV2DispatchCommandError)
    assert err.describe() == "Thread thread-1 has active or blocked work and cannot be settled."
    die = p.decode_server_message(example("exit die")).exit.cause[0]
    assert isinstance(die, p.Die) and die.defect.startswith("Expected string, got 42")
    intr = p.decode_server_message(example("exit interrupt")).exit.cause[0]
    assert isinstance(intr, p.InterruptCause) and intr.fiber_id == 412
    assert p.decode_server_message(example("exit success sequence")).exit.value == {"sequence": 9010}
    detail = p.decode_rpc_error(example("dispatch error with detail"))
    assert "is not pinned" in detail.describe()
    scope = p.decode_rpc_error(example("authorization error"))
    assert isinstance(scope, p.EnvironmentAuthorizationError)
    assert scope.required_scope == "orchestration:operate"


def test_environment_and_auth_bodies() -> None:
    env = p.EnvironmentDescriptor.from_wire(example("environment descriptor"))
    assert env.protocol_version == p.PROTOCOL_VERSION == 2
    assert env.capabilities.connection_probe is True
    legacy = {k: v for k, v in example("environment descriptor").items() if k != "orchestrationProtocolVersion"}
    assert p.EnvironmentDescriptor.from_wire(legacy).protocol_version == 1
    ticket = p.WebsocketTicket.from_wire({**example("websocket ticket"), "ticket": "wst_sekrit"})
    token = p.OAuthTokenResponse.from_wire({**example("oauth token response"), "access_token": "sekrit"})
    for secret in (ticket, token):
        for shown in (repr(secret), str(secret), pretty_repr(secret), f"{secret!r}"):
            assert "sekrit" not in shown and "<redacted>" in shown
    assert p.AuthInvalidBody.from_wire(example("401 body")).code == "auth_invalid"
    assert p.ProtocolIncompatibleBody.from_wire(example("426 body")).orchestration_protocol_version == 2


def test_commands_decode_to_their_classes() -> None:
    cmd = p.decode_command(example("message.dispatch c-201"))
    assert isinstance(cmd, p.MessageDispatch)
    assert isinstance(cmd.dispatch_mode, p.StartImmediately)
    steer = p.decode_command(example("message.dispatch steer_active"))
    assert isinstance(steer.dispatch_mode, p.SteerActive)
    assert steer.dispatch_mode.target_run_id == "run-c1"
    for mode, cls in [
        ("queue_after_active", p.QueueAfterActive),
        ("restart_active", p.RestartActive),
        ("defer_start", p.DeferStart),
    ]:
        assert isinstance(p.decode_command(example(f"message.dispatch {mode}")).dispatch_mode, cls)
    for ex in load_examples():
        if ex["decoder"] == "command":
            decoded = p.decode_command(ex["json"])
            assert type(decoded) is p.COMMAND_TYPES[ex["json"]["type"]]
    launch = p.LaunchThreadInput.from_wire(example("launchThread input"))
    assert isinstance(launch.workspace_strategy, p.WorkspaceRoot)
    assert launch.initial_message is not None and launch.initial_message.attachments == []
