"""Effect RPC framing over a real socket: ack latch, coalescing, interrupt, ping, bad input.

"No chunk arrived" is checked without sleeping: every server message goes through one ordered
writer, so once the `Exit` of a later command has arrived, any chunk produced before it would
already be in the client's queue.
"""

from __future__ import annotations

import json

import pytest

from t3tui.backend import subscriptions
from tests.backend.transport.commands import settle, thread_create
from tests.backend.transport.rawclient import RawRpc

SHELL = "orchestration.subscribeShell"
THREAD = "orchestration.subscribeThread"
DISPATCH = "orchestration.dispatchCommand"


def unsettle(thread_id: str, suffix: str = "x") -> dict:
    return {
        "type": "thread.unsettle",
        "commandId": f"c-unsettle-{thread_id}-{suffix}",
        "threadId": thread_id,
        "reason": "user",
    }


@pytest.fixture
async def client(backend):
    async with await RawRpc.open(backend.url, backend.token) as rpc:
        yield rpc


async def test_ping_pong_and_array_frames(client):
    await client.send({"_tag": "Ping"})
    assert await client.next_control() == {"_tag": "Pong"}
    batch = [
        {"_tag": "Ping"},
        {"_tag": "Request", "id": "b1", "tag": "server.probe", "payload": {}, "headers": []},
    ]
    await client.send(batch)
    assert await client.next_control() == {"_tag": "Pong"}
    assert (await client.next("b1"))["exit"] == {"_tag": "Success", "value": {}}


async def test_get_config_carries_the_environment(client):
    config = await client.ok("server.getConfig", {})
    assert config["environment"]["orchestrationProtocolVersion"] == 2
    [codex] = config["providers"]
    assert codex["instanceId"] == "codex" and codex["models"]


@pytest.mark.parametrize(
    ("frame", "defect_text"),
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"_tag": "Request", "id": 7, "tag": "server.probe", "payload": {}}), "id"),
        (
            json.dumps(
                {"_tag": "Request", "id": "9", "tag": "orchestration.getSnapshot", "payload": {}}
            ),
            "Unknown request tag: orchestration.getSnapshot",
        ),
        (json.dumps([1, 2]), "object"),
        (json.dumps({"_tag": "Bogus"}), "Bogus"),
        (json.dumps({"no": "tag"}), "_tag"),
        (b"\x00\x01", "Binary frames"),
    ],
    ids=[
        "malformed-json",
        "numeric-id",
        "unknown-method",
        "array-of-numbers",
        "unknown-tag",
        "no-tag",
        "binary",
    ],
)
async def test_bad_frames_get_a_defect_and_the_connection_keeps_working(client, frame, defect_text):
    await client.send(frame) if isinstance(frame, str) else await client.ws.send(frame)
    reply = await client.next_control()
    assert reply["_tag"] == "Defect"
    assert defect_text in reply["defect"]
    assert await client.ok("server.probe", {}) == {}


@pytest.mark.parametrize(
    ("tag", "payload", "die_text"),
    [
        (THREAD, {"threadId": 42}, 'at ["threadId"]'),
        (THREAD, {"threadId": "t", "afterSequence": -1}, 'at ["afterSequence"]'),
        (SHELL, {"requestCompletionMarker": "yes"}, 'at ["requestCompletionMarker"]'),
        ("orchestration.getThreadProjection", {}, 'at ["threadId"]'),
        (DISPATCH, {"type": "thread.settle", "commandId": "c-1"}, "threadId"),
        (DISPATCH, {"commandId": "c-2"}, "type"),
        ("orchestration.launchThread", {"commandId": "c-3"}, "projectId"),
        ("server.getConfig", [1], "Expected an object payload"),
    ],
)
async def test_a_payload_failing_validation_gets_exit_die(client, tag, payload, die_text):
    exit_ = await client.call(tag, payload)
    assert exit_["_tag"] == "Failure"
    [cause] = exit_["cause"]
    assert cause["_tag"] == "Die"
    assert die_text in cause["defect"]
    assert await client.ok("server.probe", {}) == {}


async def test_a_request_id_already_in_flight_is_a_defect(client):
    rid = await client.request(SHELL, {})
    await client.next(rid)
    await client.send({"_tag": "Request", "id": rid, "tag": SHELL, "payload": {}, "headers": []})
    assert "already in flight" in (await client.next_control())["defect"]


async def test_shell_chunk_waits_for_its_ack_and_coalesces_per_thread(client):
    rid = await client.request(SHELL, {"requestCompletionMarker": True})
    first = await client.next(rid)
    assert [item["kind"] for item in first["values"]] == ["snapshot"]
    # Not acked: everything produced now must wait, and rows of one thread must merge.
    await client.ok(DISPATCH, thread_create("thread-a"))
    await client.ok(DISPATCH, thread_create("thread-b"))
    await client.ok(DISPATCH, settle("thread-a"))
    last_a = (await client.ok(DISPATCH, unsettle("thread-a")))["sequence"]
    assert client.drain(rid) == []

    await client.ack(rid)
    second = await client.next(rid)
    kinds = [item["kind"] for item in second["values"]]
    assert kinds == ["synchronized", "thread.updated", "thread.updated"]
    rows = {item["thread"]["id"]: item for item in second["values"][1:]}
    assert set(rows) == {"thread-a", "thread-b"}
    assert rows["thread-a"]["sequence"] == last_a
    assert rows["thread-a"]["thread"]["settledOverride"] == "active"
    sequences = [item["sequence"] for item in second["values"][1:]]
    assert sequences == sorted(sequences), "a client dedupes by sequence: order must increase"


async def test_thread_stream_buffers_events_behind_the_latch(client):
    await client.ok(DISPATCH, thread_create("thread-c"))
    rid = await client.request(THREAD, {"threadId": "thread-c", "requestCompletionMarker": True})
    first = await client.next(rid)
    assert first["values"][0]["kind"] == "snapshot"
    s1 = (await client.ok(DISPATCH, settle("thread-c")))["sequence"]
    s2 = (await client.ok(DISPATCH, unsettle("thread-c")))["sequence"]
    assert client.drain(rid) == []
    await client.ack(rid)
    second = await client.next(rid)
    assert second["values"][0] == {"kind": "synchronized"}
    events = second["values"][1:]
    assert all(item["kind"] == "event" for item in events)
    assert [e["event"]["type"] for e in events][-2:] == ["thread.settled", "thread.unsettled"]
    assert events[-1]["sequence"] == s2 and s1 in [e["sequence"] for e in events]


async def test_acks_are_per_request(client):
    slow = await client.request(SHELL, {})
    await client.next(slow)  # never acked
    fast = await client.request(SHELL, {}, auto_ack=True)
    await client.next(fast)
    await client.ok(DISPATCH, thread_create("thread-d"))
    update = await client.next(fast)
    assert update["values"][0]["thread"]["id"] == "thread-d"
    assert client.drain(slow) == []


async def test_interrupt_ends_a_stream_with_an_interrupt_exit(client):
    rid = await client.request(SHELL, {}, auto_ack=True)
    await client.next(rid)
    await client.send({"_tag": "Interrupt", "requestId": rid})
    end = await client.next(rid)
    assert end["_tag"] == "Exit"
    assert [cause["_tag"] for cause in end["exit"]["cause"]] == ["Interrupt"]
    await client.ok(DISPATCH, thread_create("thread-e"))
    assert client.drain(rid) == []
    # Interrupting an id that is not in flight is harmless.
    await client.send({"_tag": "Interrupt", "requestId": "never-sent"})
    assert await client.ok("server.probe", {}) == {}


async def test_a_thread_stream_that_falls_too_far_behind_is_reset_with_one_snapshot(
    client, monkeypatch
):
    monkeypatch.setattr(subscriptions, "MAX_PENDING_THREAD_ITEMS", 3)
    await client.ok(DISPATCH, thread_create("thread-f"))
    rid = await client.request(THREAD, {"threadId": "thread-f"})
    await client.next(rid)  # the first snapshot, deliberately not acked
    last = None
    for n in range(4):
        await client.ok(DISPATCH, settle("thread-f", command_id=f"c-f-settle-{n}"))
        last = (await client.ok(DISPATCH, unsettle("thread-f", suffix=str(n))))["sequence"]
    await client.ack(rid)
    [reset] = (await client.next(rid))["values"]
    assert reset["kind"] == "snapshot"
    assert reset["snapshotSequence"] >= last
    assert reset["projection"]["thread"]["settledOverride"] == "active"


async def test_a_shell_row_item_is_the_engines_current_row(backend, client):
    rid = await client.request(SHELL, {}, auto_ack=True)
    await client.next(rid)
    created = await client.ok(DISPATCH, thread_create("thread-g", title="Ünïcode [x]"))
    [item] = (await client.next(rid))["values"]
    assert item == {
        "kind": "thread.updated",
        "sequence": created["sequence"],
        "location": "active",
        "thread": backend.engine.shell_row_wire("thread-g"),
    }
    # A second subscriber flushing at the same head gets the same row (shared encoding).
    assert subscriptions.shell_row_item(backend.engine, "thread-g", 5) == json.dumps(
        {**item, "sequence": 5}, separators=(",", ":"), ensure_ascii=False
    )


@pytest.mark.parametrize(
    ("request_id", "ack_frame"),
    [
        ("s-1", '{"_tag":"Ack","requestId":"s-1"}'),  # as clients write it: read without JSON
        ('q"1', '{"_tag":"Ack","requestId":"q\\"1"}'),  # escapes: the JSON parser reads it
        ("é-1", '{"_tag":"Ack","requestId":"\\u00e9-1"}'),
        ("é-2", '{"_tag":"Ack","requestId":"é-2"}'),
        ("s-3", '{ "_tag": "Ack", "requestId": "s-3" }'),
    ],
)
async def test_an_ack_opens_the_latch_however_its_json_is_written(client, request_id, ack_frame):
    await client.send({"_tag": "Request", "id": request_id, "tag": SHELL, "payload": {},
                       "headers": []})
    assert (await client.next(request_id))["values"][0]["kind"] == "snapshot"
    await client.ok(DISPATCH, thread_create(f"thread-ack-{len(ack_frame)}"))
    assert client.drain(request_id) == []
    await client.send(ack_frame)
    update = await client.next(request_id)
    assert update["values"][0]["thread"]["id"] == f"thread-ack-{len(ack_frame)}"


async def test_an_ack_with_a_raw_control_character_is_not_json(client):
    # `{"_tag":"Ack","requestId":"a<TAB>b"}`: JSON refuses the raw tab, so no fast path may
    # read it as an Ack
    await client.send('{"_tag":"Ack","requestId":"a\tb"}')
    reply = await client.next_control()
    assert reply["_tag"] == "Defect" and "not valid JSON" in reply["defect"]
