"""The Acks of the Chunks read together, written to the socket in one write.

Every Chunk is acked, after its values are applied, in the order the Chunks arrived (protocol
§3.3). websockets' `send` writes each message with its own `transport.write` and awaits a
drain: one syscall per Ack, and on a loopback the peer's receive of it too, the largest cost
per item of a burst. While a burst's frames are buffered the read loop reads them without
suspending, so the Acks of what it applies are queued here and written together once the loop
is let in (when the reader waits for the socket or ends a slice), and before any other message
this client sends, so the wire's order is the order of the calls.

websockets (17) has no public call that writes several messages at once: a fragmented `send`
is one message. So the Acks are framed by the connection's own sans-I/O protocol
(`ClientConnection.protocol`, websockets' documented `Protocol.send_text` and
`data_to_send`: it masks each frame and applies any negotiated extension) and the bytes go to
the connection's asyncio transport in one `write`, exactly what websockets' `send` does per
message, minus its drain. The drain is kept where it matters: an Ack per Chunk is bounded by
the Chunks read, yet a peer that stops reading must stop this reader too, so while the
transport holds more than `BUFFER_LIMIT` unsent bytes the Ack goes through `send` and waits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.protocol import State

# Above this many unsent bytes in the transport (websockets' own write limit is 32 KiB), an
# Ack waits for the socket as `send` does, so a peer that stops reading stops the reader.
BUFFER_LIMIT = 32 * 1024

Sent = Callable[[Any, str], None]  # the tap: sees each Ack as it is written


class AckWriter:
    """Queues encoded Acks; `flush()` writes every queued one in one transport write."""

    def __init__(self, ws: ClientConnection, sent: Sent | None = None) -> None:
        self._ws = ws
        self._sent = sent
        self._queued: list[tuple[Any, str, bytes]] = []
        self._due = False  # a flush is scheduled for the loop's next turn

    def crowded(self) -> bool:
        """The socket is not taking what is written: Acks must wait for it (`send`)."""
        transport = self._ws.transport
        return transport is None or transport.get_write_buffer_size() > BUFFER_LIMIT

    def queue(self, message: Any, text: str, data: bytes) -> None:
        self._queued.append((message, text, data))
        if not self._due:
            self._due = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Write every queued Ack now, in order; nothing when the socket is no longer open
        (its reader then ends the connection, which fails what the Acks were for)."""
        self._due = False
        queued, self._queued = self._queued, []
        protocol, transport = self._ws.protocol, self._ws.transport
        if not queued or protocol.state is not State.OPEN or transport is None \
                or transport.is_closing():
            return
        for message, text, data in queued:
            if self._sent is not None:
                self._sent(message, text)
            protocol.send_text(data)
        # with the socket open, what the protocol holds is these frames only: websockets
        # writes anything it queues itself (a Pong, a Close) as soon as it queues it
        transport.write(b"".join(protocol.data_to_send()))
