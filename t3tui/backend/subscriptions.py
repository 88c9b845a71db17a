"""`subscribeShell` and `subscribeThread`: snapshot or replay, `synchronized`, then live (§6).

Live delivery is attached before the snapshot or replay is read. The engine runs on this event
loop, so no event can slip between the two; the sequence floor only guards the overlap that the
protocol allows anyway.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Callable
from typing import Any, Protocol

from t3tui.backend.engine.errors import UnknownThread
from t3tui.backend.rpc import RpcDie, RpcFailure
from t3tui.backend.sink import EncodedItem, StreamSink
from t3tui.protocol.base import dumps
from t3tui.protocol.errors import GetThreadProjectionError

# Upstream's SHELL_RESUME_MAX_GAP = THREAD_RESUME_MAX_GAP.
MAX_RESUME_GAP = 1000
# A thread stream whose client stops acking is reset with one fresh snapshot instead of
# buffering without bound.
MAX_PENDING_THREAD_ITEMS = 2000


class EngineView(Protocol):
    """The part of the engine the streams read."""

    @property
    def head(self) -> int: ...
    def shell_snapshot(self) -> Any: ...
    def shell_row(self, thread_id: str) -> Any | None: ...
    def projection(self, thread_id: str) -> Any: ...
    def events_after(self, seq: int, limit: int | None = None) -> list[Any]: ...
    def listen(self, callback: Callable[[Any], None]) -> Callable[[], None]: ...


def needs_snapshot(after: int | None, head: int) -> bool:
    """The §6 rule: no cursor, a cursor ahead of head, or a gap over the bound -> snapshot."""
    return after is None or after > head or head - after > MAX_RESUME_GAP


async def subscribe_shell(engine: EngineView, payload: dict[str, Any], sink: StreamSink) -> None:
    """Stream shell items until interrupted."""
    after = optional_sequence(payload, "afterSequence")
    marker = optional_bool(payload, "requestCompletionMarker")
    floor = 0

    def push_row(thread_id: str, sequence: int) -> None:
        # Keyed by thread: a row not yet sent is replaced by the newer one (coalescing).
        sink.push(lambda: shell_row_item(engine, thread_id, sequence), key=("thread", thread_id))

    def on_event(stored: Any) -> None:
        if stored.sequence > floor:
            push_row(event_thread_id(stored), stored.sequence)

    unlisten = engine.listen(on_event)
    try:
        head = engine.head
        if needs_snapshot(after, head):
            snapshot = engine.shell_snapshot()
            floor = snapshot.snapshot_sequence
            sink.push({"kind": "snapshot", "snapshot": wire(snapshot)})
        else:
            assert after is not None
            latest: dict[str, int] = {}
            for stored in engine.events_after(after):
                latest.pop(event_thread_id(stored), None)
                latest[event_thread_id(stored)] = stored.sequence
            for thread_id, sequence in latest.items():
                push_row(thread_id, sequence)
            floor = head
        if marker:
            sink.push({"kind": "synchronized"})
        await asyncio.Event().wait()  # live until the client interrupts
    finally:
        unlisten()


async def subscribe_thread(engine: EngineView, payload: dict[str, Any], sink: StreamSink) -> None:
    """Stream one thread's items until interrupted; an unknown thread is a typed failure."""
    thread_id = required_string(payload, "threadId")
    after = optional_sequence(payload, "afterSequence")
    marker = optional_bool(payload, "requestCompletionMarker")
    floor = 0
    reset_pending = False

    def snapshot_item() -> dict[str, Any]:
        nonlocal reset_pending
        reset_pending = False
        return thread_snapshot_item(engine, thread_id)

    def on_event(stored: Any) -> None:
        nonlocal reset_pending
        if stored.sequence <= floor or event_thread_id(stored) != thread_id or reset_pending:
            return
        if sink.pending_count >= MAX_PENDING_THREAD_ITEMS:
            sink.clear_pending()
            reset_pending = True
            sink.push(snapshot_item)
            return
        sink.push(event_item(stored))

    unlisten = engine.listen(on_event)
    try:
        head = engine.head
        if needs_snapshot(after, head):
            item = thread_snapshot_item(engine, thread_id)
            floor = item["snapshotSequence"]
            sink.push(item)
        else:
            assert after is not None
            read_projection(engine, thread_id)  # an unknown thread fails even on resume
            for stored in engine.events_after(after):
                if event_thread_id(stored) == thread_id:
                    sink.push(event_item(stored))
            floor = head
        if marker:
            sink.push({"kind": "synchronized"})
        await asyncio.Event().wait()
    finally:
        unlisten()


def thread_snapshot_item(engine: EngineView, thread_id: str) -> dict[str, Any]:
    head = engine.head
    projection = read_projection(engine, thread_id)
    return {"kind": "snapshot", "snapshotSequence": head, "projection": projection}


def read_projection(engine: EngineView, thread_id: str) -> dict[str, Any]:
    """The thread's projection (wire form), or the typed `GetThreadProjectionError` failure."""
    # The reference engine keeps wire dicts; `*_wire` skips a model round trip per read.
    read = getattr(engine, "projection_wire", None)
    try:
        return read(thread_id) if read is not None else wire(engine.projection(thread_id))
    except UnknownThread:
        failure = GetThreadProjectionError(
            thread_id=thread_id, message=f"Unknown thread {thread_id}."
        )
        raise RpcFailure(wire(failure)) from None


# engine -> {thread_id: (head, location, row JSON or None)}. A row is a function of the
# engine's head, so every shell subscriber flushing at the same head shares one encoding.
_row_cache: weakref.WeakKeyDictionary[Any, dict[str, tuple[int, str, str | None]]] = (
    weakref.WeakKeyDictionary()
)


def shell_row_item(engine: EngineView, thread_id: str, sequence: int) -> Any:
    """The shell item for a thread's current row: `thread.updated`, or `thread.removed`."""
    cache = _row_cache.setdefault(engine, {})
    head = engine.head
    hit = cache.get(thread_id)
    if hit is None or hit[0] != head:
        read = getattr(engine, "shell_row_wire", None)
        row = read(thread_id) if read is not None else wire(engine.shell_row(thread_id))
        location = "archive" if row is not None and row.get("archivedAt") else "active"
        hit = cache[thread_id] = (head, location, None if row is None else dumps(row))
    _, location, text = hit
    if text is None:
        return {
            "kind": "thread.removed",
            "sequence": sequence,
            "location": "active",
            "threadId": thread_id,
        }
    # Byte-identical to dumps({"kind": ..., "sequence": ..., "location": ..., "thread": row}).
    return EncodedItem(
        f'{{"kind":"thread.updated","sequence":{int(sequence)},"location":"{location}",'
        f'"thread":{text}}}'
    )


# Every subscription hears one stored event in a row (Core._publish), so remembering the
# last one encoded serves them all with one encoding.
_last_encoded: list[Any] = [None, None]


def event_item(stored: Any) -> EncodedItem:
    """The stream item for a stored event, encoded once however many streams carry it."""
    if _last_encoded[0] is stored:
        return _last_encoded[1]
    # The store keeps the JSON it wrote (the protocol's compact form): spliced, not re-encoded.
    text = getattr(stored, "text", None)
    if text is None:
        # The store caches each event's wire form; fall back to encoding for other sources.
        text = dumps(getattr(stored, "wire", None) or wire(stored.event))
    item = EncodedItem(f'{{"kind":"event","sequence":{int(stored.sequence)},"event":{text}}}')
    _last_encoded[:] = [stored, item]
    return item


def event_thread_id(stored: Any) -> str:
    thread_id = getattr(stored, "thread_id", None)
    if isinstance(thread_id, str):
        return thread_id
    event = stored.event
    return event["threadId"] if isinstance(event, dict) else event.thread_id


def wire(value: Any) -> Any:
    """A protocol model's wire form; plain JSON values pass through."""
    return value.to_wire() if hasattr(value, "to_wire") else value


def required_string(payload: dict[str, Any], key: str) -> str:
    value = payload.get(key)
    if not isinstance(value, str) or not value:
        raise RpcDie(
            f"Expected a non-empty string, got {_describe(value)}\n  at [{json.dumps(key)}]"
        )
    return value


def optional_sequence(payload: dict[str, Any], key: str) -> int | None:
    value = payload.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RpcDie(
            f"Expected a non-negative integer, got {_describe(value)}\n  at [{json.dumps(key)}]"
        )
    return value


def optional_bool(payload: dict[str, Any], key: str) -> bool:
    value = payload.get(key, False)
    if not isinstance(value, bool):
        raise RpcDie(f"Expected a boolean, got {_describe(value)}\n  at [{json.dumps(key)}]")
    return value


def _describe(value: Any) -> str:
    if value is None:
        return "nothing"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
