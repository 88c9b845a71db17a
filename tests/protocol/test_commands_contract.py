"""Every command of the V2 union is typed, and what t3tui builds passes the strict contract."""

from datetime import UTC, datetime
from typing import Any

import pytest

from t3tui import protocol as p
from t3tui.protocol import contract

T = datetime(2026, 10, 4, 12, 30, tzinfo=UTC)
SEL = p.ModelSelection(instance_id="codex", model="gpt-5")
ids: dict[str, Any] = {"command_id": "c-1"}
THREAD = {**ids, "thread_id": "thread-1"}
PARENT = {**ids, "parent_thread_id": "thread-p", "task_id": "task-1"}

BUILT = [
    p.ThreadCreate(**THREAD, project_id="project-1", title="T", model_selection=SEL),
    p.ThreadArchive(**THREAD),
    p.ThreadUnarchive(**THREAD),
    p.ThreadDelete(**THREAD),
    p.ThreadSettle(**THREAD),
    p.ThreadAutoSettle(**THREAD, snapshot_at=T, settled_at=T),
    p.ThreadUnsettle(**THREAD),
    p.ThreadSnooze(**THREAD, snoozed_until="2026-10-05T09:00:00.000Z"),
    p.ThreadUnsnooze(**THREAD),
    p.ThreadPin(**THREAD, order_key="a0"),
    p.ThreadUnpin(**THREAD),
    p.ThreadPinReorder(**THREAD, order_key="a1"),
    p.ThreadVisit(**THREAD, visited_at="2026-10-04T12:30:00.000Z"),
    p.ThreadMarkUnread(**THREAD),
    p.ThreadMetadataUpdate(**THREAD, title="Renamed", branch=None),
    p.ThreadTitleRegenerationComplete(**THREAD, request_id="c-0"),
    p.ThreadRuntimeModeSet(**THREAD, runtime_mode="auto"),
    p.ThreadInteractionModeSet(**THREAD, interaction_mode="plan"),
    p.ThreadModelSelectionSet(**THREAD, model_selection=SEL),
    p.ProviderSessionDetach(**THREAD, provider_session_id="psess-1", reason="stuck"),
    p.MessageDispatch(**THREAD, message_id="m-1", text="hi", dispatch_mode=p.StartImmediately()),
    p.PreparedRunRelease(**THREAD, run_id="run-1"),
    p.PreparedRunProgress(**THREAD, run_id="run-1", phase="setup"),
    p.PreparedRunFail(**THREAD, run_id="run-1",
                      failure=p.ProviderFailure(class_="provider_error", message="no worktree")),
    p.RunInterrupt(**THREAD, run_id="run-1"),
    p.QueuedMessagePromoteToSteer(**THREAD, queued_run_id="run-2", target_run_id="run-1"),
    p.QueuedRunReorder(**THREAD, run_id="run-3", before_run_id=None),
    p.QueuedRunCancel(**THREAD, run_id="run-3"),
    p.QueuedRunEdit(**THREAD, run_id="run-3", text="edited"),
    p.RuntimeRequestRespond(**THREAD, request_id="rr-1", decision="accept"),
    p.CheckpointRollback(**THREAD, scope_id="scope-1", checkpoint_id="checkpoint-1"),
    p.ThreadFork(**ids, source_thread_id="thread-1", target_thread_id="thread-2",
                 source_point=p.ForkPointRun(run_id="run-1")),
    p.ThreadMergeBack(**ids, source_thread_id="thread-2", target_thread_id="thread-1"),
    p.DelegatedTaskRequest(**ids, parent_thread_id="thread-p", parent_run_id="run-1",
                           parent_node_id="node-1", task="Run the tests", model_selection=SEL),
    p.DelegatedTaskWakePolicy(**PARENT, completion_wake="always"),
    p.DelegatedTaskCompletionDeliveryAcknowledge(**PARENT, observed_by_run_id=None),
    p.DelegatedTaskCompletionDeliveryDispose(**PARENT),
    p.ThreadCreatedRecord(**ids, parent_thread_id="thread-p", parent_run_id="run-1",
                          parent_node_id="node-1", target_thread_id="thread-c",
                          target_run_id=None),
    p.ProviderSwitch(**THREAD, model_selection=SEL),
]


def test_every_command_type_of_the_contract_is_typed() -> None:
    assert set(p.COMMAND_TYPES) == set(contract.COMMAND_TYPES)
    assert {c.type for c in BUILT} == set(contract.COMMAND_TYPES)


@pytest.mark.parametrize("command", BUILT, ids=lambda c: c.type)
def test_a_command_built_in_code_passes_the_strict_contract(command: p.CommandBase) -> None:
    wire = command.to_wire()
    assert contract.violations(contract.Command, wire) == []
    decoded = p.decode_command(wire)
    assert type(decoded) is type(command) and decoded.to_wire() == wire


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: p.RuntimeRequestRespond(**THREAD, request_id="r", decision="approveAll"),
         "decision"),
        (lambda: p.ThreadRuntimeModeSet(**THREAD, runtime_mode="yolo"), "runtime_mode"),
        (lambda: p.DelegatedTaskWakePolicy(**PARENT, completion_wake="sometimes"),
         "completion_wake"),
        (lambda: p.ProviderRef.of("codex", "x", strength="forensic"),  # type: ignore[arg-type]
         "strength"),
        (lambda: p.MessageDispatch(**THREAD, message_id="m", text="t", created_by="robot",
                                   dispatch_mode=p.StartImmediately()), "created_by"),
    ],
)
def test_an_unknown_enum_value_is_never_encoded_but_still_decodes(build: Any, field: str) -> None:
    with pytest.raises(p.ProtocolError, match=rf"\.{field}: .* is not a value of the V2 contract"):
        build()


def test_unknown_enum_values_from_a_newer_peer_still_decode() -> None:
    wire = {"type": "delegated_task.wake-policy", "commandId": "c", "parentThreadId": "t",
            "taskId": "x", "completionWake": "sometimes"}
    decoded = p.decode_command(wire)
    assert isinstance(decoded, p.DelegatedTaskWakePolicy) and decoded.to_wire() == wire
    assert contract.violations(contract.Command, wire)  # and the strict check names it


def test_request_ids_are_integer_strings_and_a_stream_exit_carries_value() -> None:
    ok = p.Exit.success("7").to_wire()
    assert ok == {"_tag": "Exit", "requestId": "7", "exit": {"_tag": "Success", "value": None}}
    assert contract.violations(contract.rpc.Exit, ok) == []
    assert contract.violations(contract.rpc.Exit, {**ok, "requestId": "req-7"})


def test_an_optional_field_given_none_is_left_out_unless_null_means_something() -> None:
    # the TUI's respond flow passes both keywords; `answers: null` fails upstream's schema
    respond = p.RuntimeRequestRespond(**THREAD, request_id="r", decision="accept", answers=None)
    assert "answers" not in respond.to_wire()
    assert contract.violations(contract.Command, respond.to_wire()) == []
    launch = p.LaunchThreadInput(command_id="c", project_id="project-1", title="T",
                                 model_selection=SEL, initial_message=None, thread_id=None)
    assert {"initialMessage", "threadId"}.isdisjoint(launch.to_wire())
    assert contract.violations(contract.LaunchThreadInput, launch.to_wire()) == []
    # `thread.metadata.update {branch: null}` clears the branch: that null is sent
    update = p.ThreadMetadataUpdate(**THREAD, branch=None, title=None).to_wire()
    assert update["branch"] is None and "title" not in update
    assert contract.violations(contract.Command, update) == []
