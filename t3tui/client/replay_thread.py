"""One thread read again from a recording: its stream's items up to a replay's moment.

An open transcript in replay shows the older messages the app let go of (it keeps the
latest few, as live); they are read from the recording itself when it opens, without
replaying every other thread as `Replay` does: a line is parsed only when it names the
thread (its subscription, its items) or is a connection's line (request ids start over).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from t3tui.client.items import is_duplicate
from t3tui.client.recording import Recording
from t3tui.protocol import ProtocolError
from t3tui.protocol.methods import SUBSCRIBE_THREAD
from t3tui.protocol.rpc import Chunk, decode_server_message
from t3tui.protocol.stream import ThreadSnapshotItem, decode_thread_item


def thread_items(recording: Recording, thread_id: str, stop: int) -> Iterator[Any]:
    """The items of `thread_id`'s stream recorded in lines before `stop` (a replay's
    `index`: never beyond its moment), typed, as the feed applied them: an item at or below
    the stream's cursor is skipped."""
    needles = {json.dumps(thread_id, ensure_ascii=a)[1:-1].encode() for a in (True, False)}
    streams: set[str] = set()  # this connection's request ids of the thread's stream
    cursor: int | None = None
    for index in range(min(stop, len(recording.lines))):
        text = recording.lines[index]
        if b'"connection":' not in text and not any(n in text for n in needles):
            continue
        line = recording.parse(index)
        if line.get("connection") == "open":
            streams.clear()
        elif isinstance(out := line.get("out"), dict) and out.get("_tag") == "Request":
            payload = out.get("payload")
            if out.get("tag") == SUBSCRIBE_THREAD and isinstance(payload, dict) \
                    and payload.get("threadId") == thread_id:
                streams.add(str(out.get("id")))
        elif "in" in line:
            frame = line["in"]
            for raw in frame if isinstance(frame, list) else [frame]:
                for item in _stream_values(raw, streams):
                    if is_duplicate(item, cursor):
                        continue
                    if isinstance(item, ThreadSnapshotItem):
                        cursor = item.snapshot_sequence
                    elif isinstance(seq := getattr(item, "sequence", None), int):
                        cursor = seq if cursor is None else max(cursor, seq)
                    yield item


def _stream_values(raw: Any, streams: set[str]) -> Iterator[Any]:
    """The decoded thread items of a server message that is a chunk of one of `streams`."""
    if not isinstance(raw, dict) or raw.get("_tag") != "Chunk" \
            or str(raw.get("requestId")) not in streams:
        return  # (before decoding: a shell snapshot names every thread)
    try:
        message = decode_server_message(raw)
    except ProtocolError:
        return
    if isinstance(message, Chunk) and message.request_id in streams:
        for value in message.values:
            try:
                yield decode_thread_item(value)
            except ProtocolError:
                continue  # live, the feed skipped it too
