"""Property: whatever a client sends, the connection and the server stay up and answer."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from t3tui.backend.testing import running_backend
from tests.backend.transport.rawclient import RawRpc

METHODS = [
    "server.getConfig",
    "server.probe",
    "orchestration.subscribeShell",
    "orchestration.subscribeThread",
    "orchestration.getThreadProjection",
    "orchestration.dispatchCommand",
    "orchestration.launchThread",
    "orchestration.nope",
]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
ids = st.text(min_size=1, max_size=4) | st.integers() | st.none()
requests = st.fixed_dictionaries(
    {"_tag": st.just("Request"), "id": ids, "tag": st.sampled_from(METHODS)},
    optional={"payload": json_values, "headers": json_values},
)
control = st.fixed_dictionaries(
    {"_tag": st.sampled_from(["Ack", "Interrupt", "Ping", "Eof", "Bogus"])},
    optional={"requestId": ids},
)
messages = requests | control | json_values
frames = (
    messages.map(json.dumps)
    | st.lists(messages, min_size=1, max_size=3).map(json.dumps)
    | st.text(max_size=20)
    | st.binary(max_size=8)
)


async def exchange(sent: list[Any]) -> None:
    async with (
        running_backend() as backend,
        await RawRpc.open(backend.url, backend.token) as client,
    ):
        for frame in sent:
            await client.ws.send(frame)
        # An id no fuzzed request can have (those are at most 4 characters).
        probe = {"_tag": "Request", "id": "final-probe", "tag": "server.probe", "payload": {}}
        await client.send(probe)
        reply = await client.next("final-probe", timeout=10)
        assert reply["exit"] == {"_tag": "Success", "value": {}}
        for message in client.frames:
            assert message["_tag"] in ("Chunk", "Exit", "Defect", "Pong"), message


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(frames, max_size=6))
def test_any_sequence_of_frames_leaves_the_connection_working(sent):
    asyncio.run(exchange(sent))
