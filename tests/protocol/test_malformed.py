"""Malformed input raises ProtocolError, with a readable message, and nothing else."""

import json

import pytest

from t3tui import protocol as p

BAD_SERVER_FRAMES = [
    "",
    "not json",
    "{",
    b"\xff\xfe",
    "42",
    '"Chunk"',
    "null",
    "[1, 2]",
    "[[]]",
    '{"_tag":"Chunk","requestId":"1","values":[NaN]}',
    '{"_tag":"Defect","defect":Infinity}',
    "{}",
    '{"requestId":"1","values":[]}',
    '{"_tag":42}',
    '{"_tag":"Teleport"}',
    '{"_tag":"Request","id":"1","tag":"x","payload":{},"headers":[]}',
    '{"_tag":"Chunk","requestId":7,"values":[]}',
    '{"_tag":"Chunk","requestId":"7","values":{"kind":"synchronized"}}',
    '{"_tag":"Chunk","requestId":"7"}',
    '{"_tag":"Exit","requestId":"1"}',
    '{"_tag":"Exit","requestId":"1","exit":{"_tag":"Maybe"}}',
    '{"_tag":"Exit","requestId":"1","exit":{"_tag":"Failure","cause":"boom"}}',
    '{"_tag":"Exit","requestId":"1","exit":{"_tag":"Failure","cause":[{"_tag":"Oops"}]}}',
    '{"_tag":"Exit","requestId":"1","exit":{"_tag":"Failure","cause":[{"_tag":"Fail","error":"x"}]}}',
    '{"_tag":"Exit","requestId":"1","exit":{"_tag":"Failure","cause":[{"_tag":"Interrupt","fiberId":"x"}]}}',
    '[{"_tag":"Pong"},{"_tag":"Chunk"}]',
]
BAD_CLIENT_FRAMES = [
    '{"_tag":"Request","id":1,"tag":"server.getConfig","payload":{},"headers":[]}',
    '{"_tag":"Request","id":"1","payload":{}}',
    '{"_tag":"Request","id":"1","tag":"x","headers":"none"}',
    '{"_tag":"Request","id":"1","tag":"x","headers":[["a"]]}',
    '{"_tag":"Ack","requestId":2}',
    '{"_tag":"Ack"}',
    '{"_tag":"Interrupt","requestId":null}',
    '{"_tag":"Pong"}',
    '{"tag":"server.getConfig"}',
    "[{}]",
    "true",
]


@pytest.mark.parametrize("frame", BAD_SERVER_FRAMES)
def test_bad_server_frames(frame: str | bytes) -> None:
    with pytest.raises(p.ProtocolError) as info:
        p.decode_server_frame(frame)
    assert info.value.message and "pydantic" not in info.value.message


@pytest.mark.parametrize("frame", BAD_CLIENT_FRAMES)
def test_bad_client_frames(frame: str) -> None:
    with pytest.raises(p.ProtocolError):
        p.decode_client_frame(frame)


def test_messages_name_the_problem() -> None:
    with pytest.raises(p.ProtocolError, match="not valid JSON"):
        p.decode_server_frame("{")
    with pytest.raises(p.ProtocolError, match="no string _tag"):
        p.decode_server_frame("{}")
    with pytest.raises(p.ProtocolError, match=r"requestId: Input should be a valid string"):
        p.decode_server_frame('{"_tag":"Ack","requestId":1}'.replace("Ack", "Chunk")[:-1] + ',"values":[]}')
    with pytest.raises(p.ProtocolError, match=r"invalid Request: id"):
        p.decode_client_frame('{"_tag":"Request","id":1,"tag":"x"}')
    with pytest.raises(p.ProtocolError, match="unknown server message _tag 'Request'"):
        p.decode_server_frame('{"_tag":"Request","id":"1","tag":"x"}')


def test_non_object_request_payload_is_left_to_the_method() -> None:
    # The server answers a payload that fails the method's schema with an Exit/Die that names
    # the request, so framing accepts any JSON payload.
    (req,) = p.decode_client_frame('{"_tag":"Request","id":"5","tag":"x","payload":[1],"headers":[]}')
    assert isinstance(req, p.Request) and req.payload == [1]


BAD_ITEMS = [
    None,
    [],
    "snapshot",
    {},
    {"kind": 3},
    {"kind": "snapshot"},
    {"kind": "snapshot", "snapshot": {"projects": []}},
    {"kind": "thread.updated", "sequence": "9", "thread": {"id": "t"}},
    {"kind": "thread.updated", "sequence": 9},
    {"kind": "thread.updated", "sequence": 9, "thread": {"title": "no id"}},
    {"kind": "thread.updated", "sequence": 9, "thread": {"id": "t", "lineage": "root"}},
    {"kind": "thread.updated", "sequence": 9, "thread": {"id": "t", "createdAt": "yesterday"}},
    {"kind": "thread.updated", "sequence": 9, "thread": {"id": "t", "pendingBackgroundTasks": [{}]}},
    {"kind": "project.removed", "sequence": 9},
]


@pytest.mark.parametrize("obj", BAD_ITEMS)
def test_bad_shell_items(obj) -> None:
    with pytest.raises(p.ProtocolError):
        p.decode_shell_item(obj)


BAD_THREAD_ITEMS = [
    None,
    {"kind": None},
    {"kind": "snapshot", "snapshotSequence": 1},
    {"kind": "snapshot", "snapshotSequence": 1, "projection": {"runs": [{"id": "r"}]}},
    {"kind": "snapshot", "snapshotSequence": 1, "projection": {"turnItems": [{"id": "x"}]}},
    {"kind": "event", "sequence": 1},
    {"kind": "event", "sequence": 1, "event": {"id": "e", "payload": {}}},
    {"kind": "event", "sequence": 1, "event": {"id": "e", "type": "run.updated", "payload": {"id": "r"}}},
    {"kind": "event", "sequence": 1, "event": {"id": "e", "type": "subagent.updated", "payload": None}},
    {"kind": "event", "sequence": 1, "event": {"id": "e", "type": "turn-item.updated", "payload": 5}},
    {"kind": "event", "sequence": 1, "event": {"id": "e", "type": "x", "occurredAt": "0001-01-01T00:00:00+01:00"}},
]


@pytest.mark.parametrize("obj", BAD_THREAD_ITEMS)
def test_bad_thread_items(obj) -> None:
    with pytest.raises(p.ProtocolError):
        p.decode_thread_item(obj)


@pytest.mark.parametrize(
    "obj",
    [
        None,
        {},
        {"type": 5},
        {"type": "thread.settle", "commandId": "c"},
        {"type": "thread.settle", "threadId": "t"},
        {"type": "message.dispatch", "commandId": "c", "threadId": "t", "messageId": "m", "text": "hi"},
        {"type": "message.dispatch", "commandId": "c", "threadId": "t", "messageId": "m", "text": "hi",
         "dispatchMode": {"type": "steer_active"}},
        {"type": "delegated_task.completion-delivery.acknowledge", "commandId": "c",
         "parentThreadId": "p", "taskId": "t"},
    ],
)  # fmt: skip
def test_bad_commands(obj) -> None:
    with pytest.raises(p.ProtocolError):
        p.decode_command(obj)


def test_other_decoders_raise_protocol_error() -> None:
    for call in (
        lambda: p.decode_rpc_error("boom"),
        lambda: p.decode_rpc_error({"message": "no tag"}),
        lambda: p.decode_turn_item([]),
        lambda: p.decode_event({"id": "e"}),
        lambda: p.EnvironmentDescriptor.from_wire({"label": "no id"}),
        lambda: p.WebsocketTicket.from_wire({"ticket": 5}),
        lambda: p.parse_ts("soon"),
        lambda: p.parse_ts(None),  # type: ignore[arg-type]
        lambda: p.Fail(error={"message": "x"}).typed,
    ):
        with pytest.raises(p.ProtocolError):
            call()


def test_deeply_nested_json_is_a_protocol_error() -> None:
    with pytest.raises(p.ProtocolError):
        p.decode_server_frame("[" * 100_000 + "]" * 100_000)
    deep = json.dumps({"_tag": "Defect", "defect": [[[[[[[]]]]]]]})
    assert p.decode_server_frame(deep)[0].to_wire() == json.loads(deep)
