"""The ack latch of one stream (protocol §3.3): one `Chunk` on the wire until its `Ack`, the
items produced meanwhile coalesced into the next one; and items already encoded as JSON."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from t3tui.protocol.base import dumps
from t3tui.protocol.rpc import Chunk


class EncodedItem(str):
    """A stream item already encoded as JSON text, spliced into its Chunk as is: an event
    sent to many subscribers is then encoded once, not once per subscriber."""


def encode_chunk(request_id: str, values: list[Any]) -> str:
    """The Chunk frame `encode_message` would write, splicing pre-encoded items."""
    parts = [v if isinstance(v, EncodedItem) else dumps(v) for v in values]
    return f'{{"_tag":"Chunk","requestId":{dumps(request_id)},"values":[{",".join(parts)}]}}'


class StreamSink:
    """The ack latch of one stream: one `Chunk` in flight, later items coalesced behind it."""

    def __init__(self, request_id: str, send: Callable[[Any], None]) -> None:
        self._request_id = request_id
        self._send = send
        self._pending: dict[object, Any] = {}
        self._awaiting_ack = False
        self._idle = asyncio.Event()
        self._idle.set()
        self.closed = False

    def push(self, item: Any, key: object | None = None) -> None:
        """Queue one item; an item with the `key` of a pending one replaces it (at the end).

        A callable item is resolved only when its chunk is written (None drops it), so that a
        coalesced item carries the state current at sending time and superseded ones cost
        nothing.
        """
        if self.closed:
            return
        if key is None:
            key = object()
        else:
            self._pending.pop(key, None)
        self._pending[key] = item
        self._flush()

    @property
    def pending_count(self) -> int:
        return len(self._pending)

    def clear_pending(self) -> None:
        """Drop the items not yet sent (the caller replaces them, e.g. with a snapshot)."""
        self._pending.clear()

    def ack(self) -> None:
        self._awaiting_ack = False
        self._flush()

    async def drained(self) -> None:
        """Wait until every pushed item was sent and acknowledged."""
        await self._idle.wait()

    def _flush(self) -> None:
        if self._awaiting_ack or self.closed:
            return
        if not self._pending:
            self._idle.set()
            return
        resolved = [item() if callable(item) else item for item in self._pending.values()]
        self._pending.clear()
        values = [value for value in resolved if value is not None]
        if not values:  # every lazy item turned out to be moot; `values` is never empty
            self._idle.set()
            return
        self._awaiting_ack = True
        self._idle.clear()
        if any(isinstance(v, EncodedItem) for v in values):
            self._send(encode_chunk(self._request_id, values))
        else:
            self._send(Chunk(request_id=self._request_id, values=values))
