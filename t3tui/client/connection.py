"""One open websocket: requests multiplexed by string id, an Ack after every Chunk, Ping/Pong.

The Acks of Chunks read together leave in one write (`client/acks.py`).

A `Defect`, an unreadable frame, a missing `Pong` or a closed socket ends the connection: every
in-flight request then fails with `ConnectionLost`, and `closed` resolves with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from t3tui.client.acks import AckWriter
from t3tui.client.errors import ConnectionLost, RpcFailure
from t3tui.client.waiting import paused_for
from t3tui.protocol import ProtocolError
from t3tui.protocol.base import parse_json, utf8_frame
from t3tui.protocol.rpc import (
    Ack,
    Chunk,
    Defect,
    Die,
    Exit,
    ExitFailure,
    Fail,
    Interrupt,
    Ping,
    Pong,
    Request,
    decode_server_message,
    encode_message,
)

log = logging.getLogger(__name__)

# The read loop works at most this long before it lets the event loop in: websockets' `recv`
# returns without suspending while frames are buffered, so a burst (a slow consumer catching
# up, a loaded machine) was applied back to back while keys and paints waited behind it all.
READ_SLICE_S = 0.005
# A ping round that took this many intervals was the loop's own lateness, not the server's
# silence (a stall of seconds on a loaded machine, a server on the same loop answering only
# after it): a Pong missing then is not yet a dead socket.
LATE = 1.5
# A Ping out and nothing at all from the server (no Pong, no other frame) for this many late
# rounds in a row is a dead socket, however late the loop runs. A frame is read at most two
# rounds after it reached this machine (the loop reads the socket at its next turn, the read
# loop takes the frame at the one after, and every round holds a turn), so at the third round
# the server was silent for the whole first one: at least an interval after the Ping.
# The bound: the socket is declared dead at most three rounds after the Ping, a round being
# the interval plus the loop's lateness in it; with the default 5 s, on a loop late by up to
# an interval every round, 30 s. On a loop that keeps time: the next round, 5 s.
SILENT_ROUNDS = 3

ChunkHandler = Callable[[list[Any]], None]


class Tap(Protocol):
    """Sees every frame as it crosses the socket (the recorder); must not block."""

    def received(self, text: str, *, readable: bool = True) -> None: ...

    def sent(self, message: Any, text: str) -> None: ...


def failure_from_exit(exit_: ExitFailure) -> RpcFailure:
    """The first cause decides: a typed error, a defect, or an interrupt."""
    for cause in exit_.cause:
        if isinstance(cause, Fail):
            error = cause.error if isinstance(cause.error, dict) else {"value": cause.error}
            text = error.get("message") or error.get("_tag") or "request failed"
            return RpcFailure(str(text), error)
        if isinstance(cause, Die):
            return RpcFailure(f"server defect: {cause.defect}", {"_tag": "Die", "defect": cause.defect})
    return RpcFailure("interrupted", {"_tag": "Interrupt"})


class StreamHandle:
    """A running stream: `done` resolves when it ends; `interrupt()` unsubscribes."""

    def __init__(self, connection: Connection, request_id: str, on_values: ChunkHandler) -> None:
        self.request_id = request_id
        self.on_values: ChunkHandler | None = on_values
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # Nobody may be awaiting an abandoned stream; mark its failure as seen.
        self.done.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._connection = connection

    async def interrupt(self) -> None:
        """Stop delivering values now and ask the server to end the stream."""
        self.on_values = None
        if not self.done.done():
            await self._connection.send_quietly(Interrupt(request_id=self.request_id))


class Connection:
    """Owns one socket; use `async with Connection(ws)` or `start()`/`close()`."""

    def __init__(self, ws: ClientConnection, *, ping_interval: float = 5.0,
                 tap: Tap | None = None) -> None:
        self._ws = ws
        self._tap = tap
        self._ping_interval = ping_interval
        self._ids = itertools.count(1)
        self._calls: dict[str, asyncio.Future[Any]] = {}
        self._acks: dict[str, tuple[Ack, str, bytes]] = {}  # each stream's Ack, encoded once
        self._ack_writer = AckWriter(ws, tap.sent if tap is not None else None)
        self._streams: dict[str, StreamHandle] = {}
        self._awaiting_pong = False
        self._heard = False  # a frame came since the ping loop last looked: the socket lives
        self._tasks: list[asyncio.Task[None]] = []
        self.closed: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def __aenter__(self) -> Connection:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close("closed by client")

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._read_loop(), name="t3tui-read"),
            asyncio.create_task(self._ping_loop(), name="t3tui-ping"),
        ]

    @property
    def is_open(self) -> bool:
        return not self.closed.done()

    async def call(self, tag: str, payload: dict[str, Any]) -> Any:
        """A unary request; returns the success value or raises `RpcFailure`/`ConnectionLost`."""
        request_id = self._next_id()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[request_id] = future
        try:
            await self._send(Request(id=request_id, tag=tag, payload=payload))
            return await future
        finally:
            self._calls.pop(request_id, None)

    async def open_stream(
        self, tag: str, payload: dict[str, Any], on_values: ChunkHandler
    ) -> StreamHandle:
        """Start a stream; `on_values` runs for every Chunk, before that Chunk is acked."""
        handle = StreamHandle(self, self._next_id(), on_values)
        self._streams[handle.request_id] = handle
        try:
            await self._send(Request(id=handle.request_id, tag=tag, payload=payload))
        except ConnectionLost:
            self._streams.pop(handle.request_id, None)
            raise
        return handle

    async def close(self, reason: str) -> None:
        """Close politely; in-flight requests fail with `ConnectionLost(reason)`."""
        self._fail_all(reason)
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1.0):
                await self._ws.close()

    async def send_quietly(self, message: Interrupt | Ack) -> None:
        """Send when the socket is open; a dead socket already ended what this was about."""
        with contextlib.suppress(ConnectionLost):
            await self._send(message)

    def _next_id(self) -> str:
        if self.closed.done():
            raise ConnectionLost(self.closed.result())
        return str(next(self._ids))

    async def _send(self, message: Any, text: str | None = None) -> None:
        if self.closed.done():
            raise ConnectionLost(self.closed.result())
        if text is None:
            text = encode_message(message)
        self._ack_writer.flush()  # the Acks queued before this message go before it
        if self._tap is not None:
            self._tap.sent(message, text)
        try:
            await self._ws.send(utf8_frame(text), text=True)
        except ConnectionClosed as exc:
            self.abort(f"socket closed: {exc}")
            raise ConnectionLost(self.closed.result()) from None

    async def _read_loop(self) -> None:
        worked = 0.0  # seconds spent on messages since the loop was last let in
        try:
            async for text in self._ws:
                self._heard = True
                if worked > READ_SLICE_S:
                    worked = 0.0
                    await asyncio.sleep(0)  # one message at a time still, in order
                started = time.perf_counter()
                if isinstance(text, bytes):
                    text = text.decode("utf-8", errors="replace")
                try:
                    parsed = parse_json(text)
                    chunk = _chunk_of(parsed)
                    items = parsed if isinstance(parsed, list) else [parsed]
                    messages = [] if chunk else [decode_server_message(i) for i in items]
                except ProtocolError:
                    if self._tap is not None:
                        self._tap.received(text, readable=False)
                    raise
                if self._tap is not None:
                    self._tap.received(text)
                if chunk is not None:
                    await self._on_chunk(*chunk)
                for message in messages:
                    await self._handle(message)
                if self.closed.done():
                    return
                # the time waiting for frames is not work: no turn given back is wasted on it
                worked += time.perf_counter() - started
            self.abort("server closed the connection")
        except ConnectionClosed as exc:
            self.abort(f"socket closed: {exc}")
        except ProtocolError as exc:
            self.abort(f"unreadable frame from server: {exc.message}")
        except ConnectionLost:
            pass

    async def _handle(self, message: Any) -> None:
        if isinstance(message, Chunk):
            await self._on_chunk(message.request_id, list(message.values))
        elif isinstance(message, Exit):
            self._finish(message)
        elif isinstance(message, Pong):
            self._awaiting_pong = False
        elif isinstance(message, Defect):
            self.abort(f"server reported a protocol defect: {str(message.defect)[:300]}")

    async def _on_chunk(self, request_id: str, values: list[Any]) -> None:
        handle = self._streams.get(request_id)
        if handle is not None and handle.on_values is not None:
            try:
                handle.on_values(values)
            except Exception:
                # A consumer bug must not stall the stream: the Ack still goes out.
                log.exception("stream consumer failed on request %s", request_id)
        ack = self._acks.get(request_id)
        if ack is None:  # a stream acks every chunk: encode its Ack once
            message = Ack(request_id=request_id)
            text = encode_message(message)
            ack = self._acks[request_id] = (message, text, utf8_frame(text))
        if self._ack_writer.crowded():
            await self._send(ack[0], ack[1])  # waits for the socket to take it
        elif not self.closed.done():
            self._ack_writer.queue(*ack)

    def _finish(self, message: Exit) -> None:
        self._acks.pop(message.request_id, None)
        exit_ = message.exit
        call = self._calls.pop(message.request_id, None)
        if call is not None and not call.done():
            if isinstance(exit_, ExitFailure):
                call.set_exception(failure_from_exit(exit_))
            else:
                call.set_result(exit_.value)
        handle = self._streams.pop(message.request_id, None)
        if handle is not None and not handle.done.done():
            if isinstance(exit_, ExitFailure) and handle.on_values is not None:
                handle.done.set_exception(failure_from_exit(exit_))
            else:
                handle.done.set_result(None)

    async def _ping_loop(self) -> None:
        loop = asyncio.get_running_loop()
        interval = self._ping_interval
        silent = 0  # rounds in a row with a Ping out and nothing at all from the server
        quiet_since = 0.0  # when the first of them began
        while not self.closed.done():
            before = loop.time()
            await asyncio.sleep(interval)
            elapsed = loop.time() - before
            heard, self._heard = self._heard, False
            if not self._awaiting_pong:
                silent = 0
            else:
                # Judged by what came, not by the schedule: any frame shows the socket alive
                # (the Pong may be behind a burst, or behind a loop that was late reading).
                silent = 0 if heard else silent + 1
                if silent == 1:
                    quiet_since = before
                late = elapsed > interval * LATE
                if silent and not late:  # the loop kept time, and the server was silent
                    self.abort(f"no Pong within {interval:g}s: socket declared dead")
                    return
                if silent >= SILENT_ROUNDS:  # late every round, and silent all along
                    quiet = loop.time() - quiet_since
                    self.abort(f"no Pong, nothing at all from the server for {quiet:.1f}s "
                               f"({silent} ping rounds, each one late): socket declared dead")
                    return
                if not paused_for(interval, elapsed):
                    # the server was heard, or the round was late: the Pong may be unread in
                    # the socket, or from a server on this loop not even sent yet. Judged after
                    # a round the loop kept time in, or once SILENT_ROUNDS brought nothing.
                    continue
                # this process was paused (a suspend): the Pong may be unread in the socket,
                # so the Ping in flight is not judged; a new one asks at once
            self._awaiting_pong = True
            try:
                async with asyncio.timeout(interval):
                    await self._send(Ping())
            except (ConnectionLost, TimeoutError):
                self.abort("could not send Ping: socket declared dead")
                return

    def abort(self, reason: str) -> None:
        """The socket is unusable: fail everything in flight and drop the transport."""
        if self.closed.done():
            return
        self._fail_all(reason)
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()
        transport = self._ws.transport
        if transport is not None:
            transport.abort()

    def _fail_all(self, reason: str) -> None:
        if not self.closed.done():
            self.closed.set_result(reason)
        lost = ConnectionLost(reason)
        for future in self._calls.values():
            if not future.done():
                future.set_exception(lost)
        for handle in self._streams.values():
            if not handle.done.done():
                handle.done.set_exception(lost)
        self._calls.clear()
        self._streams.clear()


def _chunk_of(parsed: Any) -> tuple[str, list[Any]] | None:
    """(request id, values) when a frame is one Chunk, the commonest frame by far: what
    `Chunk.from_wire` accepts, read without building the model; None for anything else."""
    if isinstance(parsed, dict) and parsed.get("_tag") == "Chunk":
        request_id, values = parsed.get("requestId"), parsed.get("values")
        if isinstance(request_id, str) and isinstance(values, list):
            return request_id, values
    return None
