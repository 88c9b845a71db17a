"""The fast paths the benchmarks brought into other layers write exactly what the plain
paths write."""

from __future__ import annotations

from t3tui.backend.rpc import EncodedItem, encode_chunk
from t3tui.backend.store import StoredEvent
from t3tui.backend.subscriptions import event_item
from t3tui.protocol.base import dumps
from t3tui.protocol.rpc import Chunk, decode_server_frame, encode_message

EVENT = {"id": "evt-1", "threadId": "thread-1", "runId": "run-1",
         "occurredAt": "2026-10-04T12:00:00.000Z", "type": "message.updated",
         "payload": {"id": "msg-1", "threadId": "thread-1", "role": "assistant",
                     "text": "naïve [bold]x[/bold] \u2028 \"quoted\"", "attachments": [],
                     "streaming": True, "createdAt": "2026-10-04T12:00:00.000Z",
                     "updatedAt": "2026-10-04T12:00:00.000Z"}}


def test_a_spliced_chunk_is_byte_identical_to_the_encoded_one() -> None:
    plain = {"kind": "synchronized"}
    item = {"kind": "event", "sequence": 7, "event": EVENT}
    spliced = encode_chunk("12", [plain, EncodedItem(dumps(item))])
    assert spliced == encode_message(Chunk(request_id="12", values=[plain, item]))
    (decoded,) = decode_server_frame(spliced)
    assert decoded.values == [plain, item]


def test_one_stored_event_is_encoded_once_for_every_subscriber() -> None:
    stored = StoredEvent.from_raw(7, None, EVENT)
    first, second = event_item(stored), event_item(stored)
    assert first is second
    assert first == dumps({"kind": "event", "sequence": 7, "event": EVENT})
    other = event_item(StoredEvent.from_raw(8, None, EVENT))
    assert other is not first and '"sequence":8' in other
