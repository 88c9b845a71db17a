"""Forward compatibility: unknown fields, kinds, types and enum values decode and re-encode."""

import json

import pytest

from t3tui import protocol as p

from .conftest import example


def test_unknown_fields_are_kept_at_every_level() -> None:
    item = example("thread.updated delegated child row")
    item["futureTopLevel"] = 1
    item["thread"]["quantumState"] = {"entangled": True}
    item["thread"]["lineage"]["generation"] = 3
    item["thread"]["modelSelection"]["temperature"] = 0.2
    decoded = p.decode_shell_item(item)
    assert decoded.thread.model_extra == {"quantumState": {"entangled": True}}
    assert decoded.to_wire() == item


def test_unknown_fields_inside_typed_event_payload_and_projection() -> None:
    item = example("run.updated event")
    item["event"]["payload"]["newRunField"] = ["x"]
    item["event"]["traceparent"] = "00-abc"
    assert p.decode_thread_item(item).to_wire() == item
    snap = example("thread snapshot (full projection)")
    snap["projection"]["workflows"] = [{"id": "wf-1"}]
    snap["projection"]["subagents"][0]["usage"] = {"tokens": 5}
    assert p.decode_thread_item(snap).to_wire() == snap


def test_effect_headers_on_chunk_and_exit_are_tolerated() -> None:
    frame = {"_tag": "Chunk", "requestId": "2", "values": [{"kind": "synchronized"}], "headers": []}
    (chunk,) = p.decode_server_frame(json.dumps(frame))
    assert isinstance(chunk, p.Chunk) and chunk.to_wire() == frame


def test_unknown_shell_and_thread_kinds() -> None:
    shell = {"kind": "thread.teleported", "sequence": 9, "where": "mars"}
    decoded = p.decode_shell_item(shell)
    assert isinstance(decoded, p.UnknownShellItem) and decoded.kind == "thread.teleported"
    assert decoded.raw == shell
    thread = {"kind": "page", "cursor": "abc"}
    decoded_thread = p.decode_thread_item(thread)
    assert isinstance(decoded_thread, p.UnknownThreadItem) and decoded_thread.raw == thread


def test_unknown_event_type_keeps_raw_payload() -> None:
    item = {
        "kind": "event",
        "sequence": 9300,
        "event": {
            "id": "evt-x",
            "threadId": "thread-1",
            "occurredAt": "2026-10-04T12:00:00.000Z",
            "type": "run.background-work-cancelled",
            "payload": {"runId": "run-1", "taskIds": ["bg-1"]},
        },
    }
    decoded = p.decode_thread_item(item)
    assert not decoded.event.known
    assert decoded.event.payload == {"runId": "run-1", "taskIds": ["bg-1"]}
    assert decoded.to_wire() == item
    assert not p.decode_event({**item["event"], "payload": [1, "two"]}).known


@pytest.mark.parametrize(
    ("decode", "obj", "unknown_cls"),
    [
        (p.decode_command, {"type": "thread.stop", "commandId": "c-1", "threadId": "t"}, p.UnknownCommand),
        (p.decode_command, {"type": "thread.auto-settle.set"}, p.UnknownCommand),
        (p.decode_rpc_error, {"_tag": "OrchestrationGetWorkflowScriptError", "reason": "not-found"}, p.UnknownRpcError),
        (p.decode_turn_item, {"type": "hologram", "id": "ti-1", "beam": 1}, p.UnknownTurnItem),
    ],
)  # fmt: skip
def test_unknown_union_members(decode, obj, unknown_cls) -> None:
    decoded = decode(obj)
    assert type(decoded) is unknown_cls
    assert decoded.to_wire() == obj


def test_unknown_nested_variants() -> None:
    cmd = example("message.dispatch c-201")
    cmd["dispatchMode"] = {"type": "deliver_whenever", "after": 3}
    decoded = p.decode_command(cmd)
    assert isinstance(decoded.dispatch_mode, p.UnknownDispatchMode)
    assert decoded.to_wire() == cmd
    row = example("thread.updated delegated child row")
    row["thread"]["forkedFrom"] = {"type": "scheduled_task", "taskId": "st-1"}
    decoded_row = p.decode_shell_item(row)
    assert isinstance(decoded_row.thread.forked_from, p.UnknownForkedFrom)
    assert decoded_row.to_wire() == row
    launch = example("launchThread input")
    launch["workspaceStrategy"] = {"type": "container", "image": "x"}
    assert p.LaunchThreadInput.from_wire(launch).to_wire() == launch


def test_unknown_enum_values_decode_as_strings() -> None:
    row = example("thread.updated delegated child row")
    row["location"] = "limbo"
    thread = row["thread"]
    thread.update(
        status="hibernating",
        activityRunStatus="thinking",
        runtimeMode="yolo",
        interactionMode="pair",
        createdBy="robot",
        creationSource="tui",
        settledOverride="maybe",
    )
    thread["lineage"]["relationshipToParent"] = "clone"
    decoded = p.decode_shell_item(row)
    assert decoded.location == "limbo"
    assert (decoded.thread.status, decoded.thread.runtime_mode) == ("hibernating", "yolo")
    assert decoded.thread.subagent_parent_id is None
    assert decoded.to_wire() == row
    event = example("subagent.updated event")
    event["event"]["payload"].update(status="paused", origin="borrowed", completionWake="never")
    assert p.decode_thread_item(event).event.payload.status == "paused"
    run = example("run.updated event")
    run["event"]["payload"]["status"] = "suspended"
    decoded_run = p.decode_thread_item(run).event.payload
    assert not decoded_run.active and not decoded_run.terminal


def test_missing_optional_fields_take_defaults() -> None:
    row = p.ThreadShell.from_wire({"id": "t-1"})
    assert row.pending_background_tasks == [] and row.pending_runtime_request is None
    assert row.active_run_id is None and row.status == "idle"
    assert row.lineage.parent_thread_id is None
    assert row.to_wire() == {"id": "t-1"}
    proj = p.ThreadProjection.from_wire({})
    assert proj.thread is None and proj.runs == [] and proj.visible_turn_items == []
    sub = p.Subagent.from_wire({"id": "n-1", "status": "running"})
    assert sub.effective_completion_wake == "settled_only" and sub.completion_delivery is None
    legacy = p.ModelSelection.from_wire({"provider": "codex", "model": "gpt-5"})
    assert legacy.instance == "codex" and legacy.to_wire() == {"provider": "codex", "model": "gpt-5"}


def test_chunk_with_fifty_values() -> None:
    values = [
        {"kind": "thread.removed", "sequence": 9000 + i, "location": "active", "threadId": f"t-{i}"}
        for i in range(50)
    ]
    (chunk,) = p.decode_server_frame(json.dumps({"_tag": "Chunk", "requestId": "2", "values": values}))
    items = [p.decode_shell_item(v) for v in chunk.values]
    assert [i.sequence for i in items] == list(range(9000, 9050))
    assert all(isinstance(i, p.ThreadRemoved) for i in items)


def test_batched_frame() -> None:
    frame = json.dumps([example("pong"), example("chunk synchronized"), example("exit interrupt")])
    kinds = [type(m) for m in p.decode_server_frame(frame)]
    assert kinds == [p.Pong, p.Chunk, p.Exit]


def test_timestamps_with_offsets_normalise_to_utc() -> None:
    ticket = p.WebsocketTicket.from_wire({"ticket": "t", "expiresAt": "2026-10-04T14:05:00.123456+02:00"})
    assert ticket.expires_at is not None and ticket.expires_at.utcoffset().total_seconds() == 0
    assert ticket.to_wire()["expiresAt"] == "2026-10-04T12:05:00.123Z"
    naive = p.WebsocketTicket.from_wire({"ticket": "t", "expiresAt": "2026-10-04T12:05:00"})
    assert naive.to_wire()["expiresAt"] == "2026-10-04T12:05:00.000Z"


def test_one_malformed_row_does_not_cost_the_whole_shell_snapshot() -> None:
    from t3tui.protocol.stream import decode_shell_item, salvage_shell_snapshot

    def row(tid: object) -> dict[str, object]:
        return {"id": tid, "projectId": "p", "title": "t", "createdAt": "2026-10-04T12:00:00Z"}

    item = {"kind": "snapshot", "snapshot": {"snapshotSequence": 3, "projects": [],
            "threads": [row("a"), row(42), row("b")], "archivedThreads": [row(None)]}}
    with pytest.raises(p.ProtocolError):
        decode_shell_item(item)
    salvaged = salvage_shell_snapshot(item)
    assert salvaged is not None
    kept, dropped = salvaged
    assert dropped == 2
    decoded = decode_shell_item(kept)
    assert [t.id for t in decoded.snapshot.threads] == ["a", "b"]
    assert decoded.snapshot.archived_threads == []
    assert salvage_shell_snapshot({"kind": "synchronized"}) is None
    assert salvage_shell_snapshot({"kind": "snapshot", "snapshot": "x"}) is None
