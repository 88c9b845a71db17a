"""Effect RPC framing on one server-side websocket (protocol §3.3, §3.5).

One `RpcConnection` per socket: it decodes client frames, runs unary calls and streams as
tasks, keeps a per-request ack latch (`StreamSink`), answers pings, and turns every kind of bad
input into the documented reply without closing the socket. A message is written at once when
nothing is queued before it, else it waits in one queue: either way its place on the wire is
fixed at the moment it is produced.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from t3tui.backend.sink import StreamSink
from t3tui.protocol import ProtocolError
from t3tui.protocol.base import parse_json, utf8_frame
from t3tui.protocol.rpc import (
    Ack,
    Defect,
    Die,
    Eof,
    Exit,
    ExitFailure,
    ExitSuccess,
    Fail,
    Interrupt,
    InterruptCause,
    Ping,
    Pong,
    Request,
    decode_client_message,
    encode_message,
)

log = logging.getLogger(__name__)

# A client that stops reading must not grow the server without bound. A stream holds at most
# one Chunk on the wire until it is acked (`StreamSink`, the protocol's back-pressure, with
# bounded coalescing behind it); everything else (answers, pongs, defects) waits in the outbox.
# While the outbox is over its cap the server reads no more requests (TCP holds the client
# back); when it stays over the cap for STALL_S without the client reading, the socket is
# closed with 1008 and a reason that says so. That is judged by a clock, not when the next
# request arrives: a client that sent its last request and stopped reading sends no more.
OUTBOX_MAX_MESSAGES = 4096
OUTBOX_MAX_BYTES = 32 * 1024 * 1024
STALL_S = 30.0
NOT_READING = 1008  # policy violation


# The transport's own write buffer: under this many bytes a message is written at once
# (websockets' default write limit); over it, messages wait in the outbox for the writer task,
# which waits for the socket to drain.
WRITE_NOW_MAX_BYTES = 32 * 1024

# An Ack frame exactly as clients write it, with a request id JSON reads as the same text (no
# quote, backslash or control character): read without the JSON parser.
_ACK_PREFIX = '{"_tag":"Ack","requestId":"'
_PLAIN_ID = re.compile(r'[^"\\\x00-\x1f]*')

_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate_at(value: Any, path: str) -> str | None:
    """The path of the first string (or object key) in `value` holding a lone surrogate, the
    one kind of text JSON can carry that is not Unicode: it cannot be stored, encoded or
    shown, so it is refused where it enters (protocol §3.5: a payload that fails validation
    gets a `Die`), naming the field. None when all text is valid."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return where
        elif isinstance(item, dict):
            for key, inner in item.items():
                if isinstance(key, str) and _SURROGATE.search(key):
                    return f"{where} (a key)"
                stack.append((inner, f"{where}.{key}"))
        elif isinstance(item, list):
            stack.extend((inner, f"{where}[{i}]") for i, inner in enumerate(item))
    return None


class WriteGate(Protocol):
    """When a frame may be written: `mark()` when it is made, `passed(mark)` once it may go
    (the reference engine: once everything it appended before is committed)."""

    def mark(self) -> int: ...
    def passed(self, mark: int) -> bool: ...
    async def written(self, mark: int) -> None: ...


class RpcFailure(Exception):
    """A method's declared (typed) error: sent as a `Fail` cause."""

    def __init__(self, error: Mapping[str, Any]) -> None:
        super().__init__(error.get("message", error.get("_tag", "failure")))
        self.error = dict(error)


class RpcDie(Exception):
    """A payload that fails validation: sent as a `Die` cause with this text."""


UnaryHandler = Callable[[dict[str, Any]], Awaitable[Any]]
StreamHandler = Callable[[dict[str, Any], StreamSink], Awaitable[None]]


@dataclass(frozen=True)
class Method:
    """One RPC method: a unary call (one `Exit`) or a stream (chunks, then an `Exit`)."""

    kind: Literal["unary", "stream"]
    handler: UnaryHandler | StreamHandler


@dataclass
class _InFlight:
    task: asyncio.Task[None]
    kind: Literal["unary", "stream"]
    fiber_id: int
    sink: StreamSink | None = None


class RpcConnection:
    """Serves the RPC methods on one accepted websocket until it closes."""

    def __init__(self, ws: ServerConnection, methods: Mapping[str, Method], *,
                 max_messages: int | None = None, max_bytes: int | None = None,
                 gate: WriteGate | None = None) -> None:
        self._ws = ws
        self._methods = methods
        self._gate = gate
        self._outbox: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        self._busy = False  # the writer task holds a message it has not written yet
        self._queued_bytes = 0
        self._max_messages = max_messages or OUTBOX_MAX_MESSAGES
        self._max_bytes = max_bytes or OUTBOX_MAX_BYTES
        self._room = asyncio.Event()  # set while the outbox is under its cap
        self._room.set()
        self._stall_watch: asyncio.Task[None] | None = None
        self._closing: asyncio.Task[None] | None = None
        self._inflight: dict[str, _InFlight] = {}
        self._fibers = itertools.count(1)
        # Unary calls are commands: they finish even if the client goes away (see `_on_request`).
        self._detached: set[asyncio.Task[None]] = set()

    async def serve(self) -> None:
        writer = asyncio.create_task(self._write_loop())
        try:
            async for frame in self._ws:
                await self._room.wait()  # `_watch_stall` opens it if the client never reads
                if self._closing is not None:
                    continue  # closing a client that does not read: nothing more to answer
                try:
                    self._on_frame(frame)
                except Exception as error:  # a server bug must not take the socket down
                    log.error("RPC frame handling failed: %s: %s", type(error).__name__, error)
                    log.debug("RPC frame traceback", exc_info=True)
                    self.send(Defect(defect=f"Internal server error: {type(error).__name__}"))
        except ConnectionClosed:
            pass
        finally:
            for entry in list(self._inflight.values()):
                if entry.kind == "stream":
                    entry.task.cancel()
            self._inflight.clear()
            for task in (writer, self._stall_watch):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task

    def send(self, message: Any) -> None:
        """Write one server message (or its already encoded text), or queue it for the wire.

        With nothing queued, the gate open and the socket keeping up, the frame is written now
        (one `transport.write`, as `websockets.broadcast` does), in order: everything produced
        earlier is already written. Otherwise it waits in the outbox for the writer task.
        """
        if self._closing is not None:
            return
        text = message if isinstance(message, str) else encode_message(message)
        gate, ws = self._gate, self._ws
        mark = 0 if gate is None else gate.mark()
        if self._outbox.empty() and not self._busy and (gate is None or gate.passed(mark)) \
                and ws.protocol.state is State.OPEN \
                and ws.transport.get_write_buffer_size() < WRITE_NOW_MAX_BYTES:
            # Echoed client text or a stored event from before text was checked may hold
            # a lone surrogate: utf8_frame escapes it instead of failing the socket.
            broadcast((ws,), utf8_frame(text), text=True)
            return
        self._queued_bytes += len(text)
        self._outbox.put_nowait((text, mark))
        if self._outbox.qsize() >= self._max_messages or self._queued_bytes >= self._max_bytes:
            self._room.clear()
            if self._stall_watch is None:
                self._stall_watch = asyncio.create_task(self._watch_stall())

    async def _watch_stall(self) -> None:
        """Close the socket when the outbox stays over its cap for STALL_S."""
        try:
            async with asyncio.timeout(STALL_S):
                await self._room.wait()
        except TimeoutError:
            self._not_reading()
        finally:
            self._stall_watch = None

    def _not_reading(self) -> None:
        queued, mib = self._outbox.qsize(), self._queued_bytes / 2**20
        reason = f"client is not reading: {queued} replies ({mib:.1f} MiB) waiting for {STALL_S:g}s"
        log.warning("closing a connection: %s", reason)
        while not self._outbox.empty():  # free them now; they will never be read
            self._outbox.get_nowait()
        self._queued_bytes = 0
        for entry in self._inflight.values():
            if entry.sink is not None:
                entry.sink.closed = True
                entry.sink.clear_pending()
        self._closing = asyncio.create_task(self._ws.close(NOT_READING, reason[:120]))
        self._room.set()  # the serve loop reads on, to drop whatever still arrives

    async def _write_loop(self) -> None:
        while True:
            text, mark = await self._outbox.get()
            self._busy = True
            self._queued_bytes -= len(text)
            if self._outbox.qsize() < self._max_messages and self._queued_bytes < self._max_bytes:
                self._room.set()
            try:
                if self._gate is not None and not self._gate.passed(mark):
                    await self._gate.written(mark)
                await self._ws.send(utf8_frame(text), text=True)
            except ConnectionClosed:
                self._room.set()  # nothing drains the outbox any more: do not wait on it
                return
            except Exception as error:  # the gate can never open (the event store failed)
                log.error("closing a connection: %s: %s", type(error).__name__, error)
                self._room.set()
                await self._ws.close(1011, "the server cannot store events")
                return
            finally:
                self._busy = False

    def _on_frame(self, frame: str | bytes) -> None:
        if isinstance(frame, bytes):
            self.send(Defect(defect="Binary frames are not supported; send JSON text frames."))
            return
        if frame.startswith(_ACK_PREFIX) and frame.endswith('"}') \
                and _PLAIN_ID.fullmatch(frame, len(_ACK_PREFIX), len(frame) - 2):
            # the commonest frame by far (one per Chunk per client), read as JSON would
            self._on_ack(frame[len(_ACK_PREFIX):-2])
            return
        try:
            parsed = parse_json(frame)
            if isinstance(parsed, dict) and parsed.get("_tag") == "Ack" \
                    and isinstance(request_id := parsed.get("requestId"), str):
                # the commonest frame by far (one per Chunk per client): what Ack.from_wire
                # would accept, without building the model
                self._on_ack(request_id)
                return
            items = parsed if isinstance(parsed, list) else [parsed]
            messages = [decode_client_message(item) for item in items]
        except ProtocolError as error:
            self.send(Defect(defect=f"Malformed message: {error.message}"))
            return
        for message in messages:
            self._on_message(message)

    def _on_ack(self, request_id: str) -> None:
        entry = self._inflight.get(request_id)
        if entry is not None and entry.sink is not None:
            entry.sink.ack()

    def _on_message(self, message: Any) -> None:
        if isinstance(message, Request):
            self._on_request(message)
        elif isinstance(message, Ack):
            self._on_ack(message.request_id)
        elif isinstance(message, Interrupt):
            self._on_interrupt(message.request_id)
        elif isinstance(message, Ping):
            self.send(Pong())
        elif isinstance(message, Eof):
            pass  # "no more requests": the in-flight ones still run to their end

    def _on_request(self, request: Request) -> None:
        bad = lone_surrogate_at(request.id, "id") or lone_surrogate_at(request.tag, "tag")
        if bad is not None:
            self.send(Defect(defect=f"Invalid request {bad}: it holds a lone surrogate, "
                                    "which is not valid Unicode text."))
            return
        method = self._methods.get(request.tag)
        if method is None:
            self.send(Defect(defect=f"Unknown request tag: {request.tag}"))
            return
        if request.id in self._inflight:
            self.send(Defect(defect=f"Request id {request.id} is already in flight."))
            return
        payload = request.payload
        if not isinstance(payload, dict):
            # Every method here takes an object; this is a schema failure, not a protocol one.
            got = type(payload).__name__ if payload is not None else "null"
            self._finish(
                request.id,
                ExitFailure(cause=[Die(defect=f"Expected an object payload, got {got}")]),
            )
            return
        bad = lone_surrogate_at(payload, "payload")
        if bad is not None:
            self._finish(request.id, ExitFailure(cause=[Die(
                defect=f"Invalid text at {bad}: it holds a lone surrogate, which is not valid "
                       "Unicode text; send it as valid UTF-16 or replace it")]))
            return
        fiber_id = next(self._fibers)
        if method.kind == "stream":
            sink = StreamSink(request.id, self.send)
            coro = self._run_stream(request.id, method.handler, payload, sink)  # type: ignore[arg-type]
            task = asyncio.create_task(coro)
            self._inflight[request.id] = _InFlight(task, "stream", fiber_id, sink)
        else:
            task = asyncio.create_task(self._run_unary(request.id, method.handler, payload))  # type: ignore[arg-type]
            self._inflight[request.id] = _InFlight(task, "unary", fiber_id)
            self._detached.add(task)
            task.add_done_callback(self._detached.discard)

    def _on_interrupt(self, request_id: str) -> None:
        entry = self._inflight.pop(request_id, None)
        if entry is None:
            return  # already ended: its Exit is on the wire
        if entry.kind == "stream":
            assert entry.sink is not None
            entry.sink.closed = True
            entry.task.cancel()
        # A unary call is left to finish (a command must not stop half-applied); its Exit is
        # replaced by the Interrupt exit and its result dropped.
        self._finish(request_id, ExitFailure(cause=[InterruptCause(fiber_id=entry.fiber_id)]))

    async def _run_unary(self, request_id: str, handler: UnaryHandler, payload: dict) -> None:
        exit_ = await _call(handler(payload))
        if self._inflight.pop(request_id, None) is not None:
            self._finish(request_id, exit_)

    async def _run_stream(
        self, request_id: str, handler: StreamHandler, payload: dict, sink: StreamSink
    ) -> None:
        async def body() -> None:
            await handler(payload, sink)
            await sink.drained()

        exit_ = await _call(body())
        sink.closed = True
        if self._inflight.pop(request_id, None) is not None:
            self._finish(request_id, exit_)

    def _finish(self, request_id: str, exit_: ExitSuccess | ExitFailure) -> None:
        self.send(Exit(request_id=request_id, exit=exit_))


async def _call(call: Awaitable[Any]) -> ExitSuccess | ExitFailure:
    """Run a handler and describe its outcome as an Effect exit."""
    try:
        value = await call
    except RpcFailure as failure:
        return ExitFailure(cause=[Fail(error=failure.error)])
    except (RpcDie, ProtocolError) as bad:
        text = bad.message if isinstance(bad, ProtocolError) else str(bad)
        return ExitFailure(cause=[Die(defect=text)])
    except asyncio.CancelledError:
        raise
    except Exception as error:
        log.error("RPC handler failed: %s: %s", type(error).__name__, error)
        log.debug("RPC handler traceback", exc_info=True)
        return ExitFailure(cause=[Die(defect=f"Internal server error: {type(error).__name__}")])
    return ExitSuccess(value=value)
