"""Messages and commands built in code encode to exactly the documented JSON."""

import json
from datetime import UTC, datetime, timedelta, timezone

from t3tui import protocol as p

from .conftest import example

T = datetime(2026, 10, 4, 12, 30, tzinfo=UTC)


def test_client_messages_match_the_doc() -> None:
    req = p.Request(id="1", tag=p.SERVER_GET_CONFIG)
    assert p.encode_message(req) == json.dumps(example("getConfig request"), separators=(",", ":"))
    sub = p.Request(
        id="7",
        tag=p.SUBSCRIBE_THREAD,
        payload=p.SubscribeThreadInput(thread_id="thread-1", request_completion_marker=True).to_wire(),
    )
    assert sub.to_wire() == example("subscribeThread request")
    assert p.Ack(request_id="7").to_wire() == example("ack")
    assert p.Interrupt(request_id="7").to_wire() == example("interrupt")
    assert p.encode_message(p.Ping()) == '{"_tag":"Ping"}'
    assert p.encode_message(p.Eof()) == '{"_tag":"Eof"}'


def test_server_messages_match_the_doc() -> None:
    assert p.Exit.success("8", {"sequence": 9010}).to_wire() == example("exit success sequence")
    err = p.DispatchCommandError(
        command_id="c-1",
        command_type="thread.settle",
        message="Thread thread-1 has active or blocked work and cannot be settled.",
    )
    failed = p.Exit.failure("9", p.Fail(error=err.to_wire()))
    assert failed.to_wire() == example("exit fail dispatch error")
    die = p.Exit.failure("10", p.Die(defect='Expected string, got 42\n  at ["threadId"]'))
    assert die.to_wire() == example("exit die")
    assert p.Exit.failure("7", p.InterruptCause(fiber_id=412)).to_wire() == example("exit interrupt")
    no_fiber = p.Exit.failure("7", p.InterruptCause()).to_wire()
    assert no_fiber == example("exit interrupt without fiberId")
    assert p.Exit.success("2").to_wire() == example("exit success null (stream end)")
    defect = p.Defect(defect="Unknown request tag: orchestration.getSnapshot")
    assert defect.to_wire() == example("defect")
    assert p.Pong().to_wire() == example("pong")
    chunk = p.Chunk(request_id="2", values=[p.ShellSynchronized().to_wire()])
    assert chunk.to_wire() == example("chunk synchronized")


def test_commands_match_the_doc() -> None:
    assert p.ThreadSettle(command_id="c-101", thread_id="thread-1").to_wire() == example(
        "thread.settle c-101"
    )
    assert p.ThreadSettle(command_id="c-102", thread_id="thread-1", settled_at=T).to_wire() == (
        example("thread.settle c-102")
    )
    assert p.ThreadUnsettle(command_id="c-103", thread_id="thread-1").to_wire() == example(
        "thread.unsettle c-103"
    )
    dispatch = p.MessageDispatch(
        command_id="c-201",
        thread_id="thread:delegated-task:command%3Amcp%3Asess-1%3Adelegate-task%3Areview-1",
        message_id="m-8a1e…",
        text="Reply PONG",
        dispatch_mode=p.StartImmediately(),
    )
    assert dispatch.to_wire() == example("message.dispatch c-201")
    steer = p.MessageDispatch(
        command_id="c-211",
        thread_id="thread-1",
        message_id="m-1",
        text="Status?",
        dispatch_mode=p.SteerActive(target_run_id="run-c1"),
    )
    assert steer.to_wire() == example("message.dispatch steer_active")
    interrupt = p.RunInterrupt(
        command_id="c-301", thread_id="thread-1", run_id="run-17", reason="t3tui: user interrupt"
    )
    assert interrupt.to_wire() == example("run.interrupt c-301")
    assert "reason" not in p.RunInterrupt(command_id="c", thread_id="t", run_id="r").to_wire()
    approve = p.RuntimeRequestRespond(
        command_id="c-401", thread_id="thread-1", request_id="rr-5", decision="accept"
    )
    assert approve.to_wire() == example("runtime-request.respond c-401")
    answer = p.RuntimeRequestRespond(
        command_id="c-402", thread_id="thread-1", request_id="rr-6", answers={"q1": "Yes"}
    )
    assert answer.to_wire() == example("runtime-request.respond c-402")
    wake = p.DelegatedTaskWakePolicy(
        command_id="c-501",
        parent_thread_id="thread-parent",
        task_id="node:delegated-task:…",
        completion_wake="always",
    )
    assert wake.to_wire() == example("delegated_task.wake-policy c-501")
    dispose = p.DelegatedTaskCompletionDeliveryDispose(
        command_id="c-502", parent_thread_id="thread-parent", task_id="node:delegated-task:…"
    )
    assert dispose.to_wire() == example("delegated_task.completion-delivery.dispose c-502")
    ack = p.DelegatedTaskCompletionDeliveryAcknowledge(
        command_id="c-601",
        parent_thread_id="thread-parent",
        task_id="node:delegated-task:a",
        observed_by_run_id=None,
    )
    assert ack.to_wire() == example("delegated_task.completion-delivery.acknowledge")
    detach = p.ProviderSessionDetach(
        command_id="c-603", thread_id="thread-1", provider_session_id="psess-1", reason="t3tui: stop"
    )
    assert detach.to_wire() == example("provider-session.detach")


def test_launch_input_matches_the_doc() -> None:
    launch = p.LaunchThreadInput(
        command_id="c-launch-1",
        project_id="project-1",
        title="Fix flaky test",
        model_selection=p.ModelSelection(instance_id="codex", model="gpt-5"),
        initial_message=p.InitialMessage(text="Find and fix the flaky test"),
    )
    assert launch.to_wire() == example("launchThread input")


def test_constructed_entities_emit_required_keys_and_omit_optional_ones() -> None:
    row = p.ThreadShell(id="t-1", title="Review", created_at=T).to_wire()
    assert row["createdAt"] == "2026-10-04T12:30:00.000Z"
    assert row["pendingBackgroundTasks"] == [] and row["activeRunId"] is None
    assert row["lineage"] == {"parentThreadId": None, "relationshipToParent": None, "rootThreadId": None}
    for optional in ("activityRunStatus", "lastError", "pinnedAt", "snoozedUntil", "linkedPullRequest"):
        assert optional not in row
    detached = p.ProviderSessionDetached(provider_session_id="psess-1", detached_at=T).to_wire()
    assert detached == {"providerSessionId": "psess-1", "detachedAt": "2026-10-04T12:30:00.000Z"}
    event = p.ThreadEventItem(
        sequence=9100,
        event=p.DomainEvent(
            id="evt-100",
            thread_id="thread-parent",
            occurred_at=T,
            type="provider-session.detached",
            payload=p.ProviderSessionDetached(
                provider_session_id="psess-1", detached_at=T, reason="Thread settled."
            ),
        ),
    )
    assert p.decode_thread_item(event.to_wire()).to_wire() == event.to_wire()
    assert "runId" not in event.to_wire()["event"]


def test_event_built_from_a_dict_payload_gets_typed() -> None:
    event = p.DomainEvent(
        id="e", thread_id="t", occurred_at=T, type="run.updated", payload={"id": "r", "status": "queued"}
    )
    assert isinstance(event.payload, p.Run) and event.known


def test_snake_case_and_camel_case_both_populate() -> None:
    assert p.Ack(request_id="1") == p.Ack.model_validate({"requestId": "1"})
    assert p.ThreadSettle.from_wire({"type": "thread.settle", "command_id": "c", "thread_id": "t"})


def test_timestamp_formatting() -> None:
    assert p.format_ts(datetime(2026, 10, 4, 12, 0, 0, 999_999, tzinfo=UTC)) == "2026-10-04T12:00:00.999Z"
    assert p.format_ts(datetime(2026, 10, 4, 12, 0)) == "2026-10-04T12:00:00.000Z"
    plus_two = timezone(timedelta(hours=2))
    assert p.format_ts(datetime(2026, 10, 4, 14, 0, tzinfo=plus_two)) == "2026-10-04T12:00:00.000Z"
    assert p.format_ts(datetime(5, 1, 2, tzinfo=UTC)) == "0005-01-02T00:00:00.000Z"
    parsed = p.parse_ts("2026-10-04T12:00:00.000Z")
    assert parsed == datetime(2026, 10, 4, 12, tzinfo=UTC) and parsed.tzinfo is not None
    assert p.format_ts(p.parse_ts("2026-10-04T14:00:00+02:00")) == "2026-10-04T12:00:00.000Z"


def test_encode_message_is_compact_and_keeps_unicode() -> None:
    text = p.encode_message(p.Chunk(request_id="2", values=[{"text": "Reading the diff…"}]))
    assert text == '{"_tag":"Chunk","requestId":"2","values":[{"text":"Reading the diff…"}]}'
