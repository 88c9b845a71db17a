"""Property-based: decoders raise only ProtocolError; valid envelopes round-trip."""

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from t3tui import protocol as p

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
json_objects = st.dictionaries(st.text(max_size=10), json_values, max_size=5)

SERVER_TAGS = ["Chunk", "Exit", "Defect", "Pong"]
CLIENT_TAGS = ["Request", "Ack", "Interrupt", "Ping", "Eof"]
EXIT_TAGS = ["Success", "Failure", "Fail", "Die", "Interrupt"]
SHELL_KINDS = ["snapshot", "synchronized", "project.updated", "project.removed", "thread.updated", "thread.removed", "other"]
THREAD_KINDS = ["snapshot", "synchronized", "event", "other"]
EVENT_TYPES = [*sorted(p.KNOWN_EVENT_TYPES), "run.background-work-cancelled"]
WIRE_KEYS = ["requestId", "id", "tag", "payload", "headers", "values", "exit", "cause", "error",
             "defect", "fiberId", "value", "sequence", "snapshotSequence", "snapshot", "projection",
             "thread", "project", "projectId", "threadId", "location", "event", "type", "status",
             "occurredAt", "lineage", "runs", "turnItems", "subagents", "createdAt"]  # fmt: skip


def near_valid(tag_key: str, tags: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with a plausible tag and a random mix of real wire keys: reaches deep validators."""
    nested = st.deferred(lambda: near)
    value = json_values | nested | st.lists(nested, max_size=3)
    near = st.builds(
        lambda tag, body: {tag_key: tag, **body},
        st.sampled_from(tags),
        st.dictionaries(st.sampled_from(WIRE_KEYS), value, max_size=5),
    )
    return near


anything = json_values | near_valid("_tag", SERVER_TAGS + CLIENT_TAGS + EXIT_TAGS) | near_valid(
    "kind", SHELL_KINDS + THREAD_KINDS
) | near_valid("type", EVENT_TYPES)


def only_protocol_errors(call, arg) -> None:
    try:
        call(arg)
    except p.ProtocolError as exc:
        assert exc.message


@SETTINGS
@given(anything)
def test_frame_decoders_from_json_values(value: Any) -> None:
    text = json.dumps(value)
    only_protocol_errors(p.decode_server_frame, text)
    only_protocol_errors(p.decode_client_frame, text)


@SETTINGS
@given(st.text(max_size=60) | st.binary(max_size=60))
def test_frame_decoders_from_raw_text(text: str | bytes) -> None:
    only_protocol_errors(p.decode_server_frame, text)
    only_protocol_errors(p.decode_client_frame, text)


@SETTINGS
@given(anything)
def test_item_decoders(value: Any) -> None:
    for decode in (
        p.decode_shell_item,
        p.decode_thread_item,
        p.decode_event,
        p.decode_command,
        p.decode_rpc_error,
        p.decode_turn_item,
    ):
        only_protocol_errors(decode, value)


@SETTINGS
@given(
    st.sampled_from(EVENT_TYPES),
    st.dictionaries(st.sampled_from(WIRE_KEYS), json_values, max_size=6),
)
def test_event_payloads(etype: str, payload: dict[str, Any]) -> None:
    obj = {"kind": "event", "sequence": 1, "event": {"id": "e", "type": etype, "payload": payload}}
    only_protocol_errors(p.decode_thread_item, obj)


ids = st.text(min_size=1, max_size=12)
headers = st.lists(st.tuples(st.text(max_size=8), st.text(max_size=8)).map(list), max_size=3)
fail = st.builds(lambda e: {"_tag": "Fail", "error": {"_tag": "SomeError", **e}}, json_objects)
die = st.builds(lambda d: {"_tag": "Die", "defect": d}, json_values)
interrupt_cause = st.just({"_tag": "Interrupt"}) | st.builds(
    lambda f: {"_tag": "Interrupt", "fiberId": f}, st.integers(0, 2**53)
)
exits = st.builds(lambda v: {"_tag": "Success", "value": v}, json_values) | st.builds(
    lambda c: {"_tag": "Failure", "cause": c}, st.lists(fail | die | interrupt_cause, min_size=1, max_size=3)
)
server_envelopes = st.one_of(
    st.builds(lambda r, v: {"_tag": "Chunk", "requestId": r, "values": v}, ids, st.lists(json_values, min_size=1, max_size=5)),
    st.builds(lambda r, e: {"_tag": "Exit", "requestId": r, "exit": e}, ids, exits),
    st.builds(lambda d: {"_tag": "Defect", "defect": d}, json_values),
    st.just({"_tag": "Pong"}),
)  # fmt: skip
client_envelopes = st.one_of(
    st.builds(
        lambda i, t, pl, h: {"_tag": "Request", "id": i, "tag": t, "payload": pl, "headers": h},
        ids, st.text(max_size=30), json_objects, headers,
    ),
    st.builds(lambda r: {"_tag": "Ack", "requestId": r}, ids),
    st.builds(lambda r: {"_tag": "Interrupt", "requestId": r}, ids),
    st.just({"_tag": "Ping"}),
    st.just({"_tag": "Eof"}),
)  # fmt: skip


@SETTINGS
@given(server_envelopes)
def test_server_envelopes_round_trip(env: dict[str, Any]) -> None:
    (msg,) = p.decode_server_frame(json.dumps(env))
    assert msg.to_wire() == env
    assert json.loads(p.encode_message(msg)) == env


@SETTINGS
@given(client_envelopes)
def test_client_envelopes_round_trip(env: dict[str, Any]) -> None:
    (msg,) = p.decode_client_frame(json.dumps(env))
    assert msg.to_wire() == env


@SETTINGS
@given(st.lists(server_envelopes, max_size=5))
def test_batched_frames_round_trip(envs: list[dict[str, Any]]) -> None:
    assert [m.to_wire() for m in p.decode_server_frame(json.dumps(envs))] == envs
