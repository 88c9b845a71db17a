"""The supervised connection: subscriptions, reconnect with resume, commands, state.

The session owns the socket and feeds decoded stream items into a sink (the model's
`Supervisor`), which owns the data and its per-stream cursors. After every applied batch the
session asks the sink which threads matter and subscribes or unsubscribes thread streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from t3tui.client.backoff import Backoff
from t3tui.client.connection import Connection, StreamHandle
from t3tui.client.errors import ClientError, ConnectionLost, FatalError, RpcFailure, describe
from t3tui.client.handshake import open_socket
from t3tui.client.items import is_duplicate, is_marker
from t3tui.client.outcome import CommandOutcome, Unknown, accepted, from_error
from t3tui.client.secret import Target
from t3tui.client.state import (
    Connecting,
    ConnectionState,
    Failed,
    Live,
    Observable,
    Reconnecting,
    Stale,
    Syncing,
)
from t3tui.protocol import ProtocolError
from t3tui.protocol.methods import (
    DISPATCH_COMMAND,
    SERVER_GET_CONFIG,
    SUBSCRIBE_SHELL,
    SUBSCRIBE_THREAD,
)
from t3tui.protocol.stream import decode_shell_item, decode_thread_item

log = logging.getLogger(__name__)

SHELL = None  # the key of the shell stream among the thread ids
T = TypeVar("T")


class Sink(Protocol):
    """What the session feeds; the model's `Supervisor` satisfies it."""

    def apply_shell(self, item: Any) -> Any: ...

    def apply_thread(self, thread_id: str, item: Any) -> Any: ...

    @property
    def cursor_shell(self) -> int | None: ...

    def cursor_thread(self, thread_id: str) -> int | None: ...

    def threads_of_interest(self) -> Iterable[str]: ...

    def mark_stale(self) -> None: ...

    def forget_thread(self, thread_id: str) -> None: ...


@dataclass(frozen=True)
class StreamUpdate:
    """Items were applied to the shell (`thread_id` None) or to one thread's projection.

    `live` is False for catch-up (history replayed before that stream's `synchronized`).
    """

    thread_id: str | None
    items: int
    live: bool


class Session:
    """Keeps one server supervised until `stop()`; see `run()`."""

    def __init__(
        self,
        target: Target,
        sink: Sink,
        *,
        backoff: Backoff | None = None,
        ping_interval: float = 5.0,
        open_timeout: float = 10.0,
    ) -> None:
        self.target = target
        self.sink = sink
        self.state: Observable[ConnectionState] = Observable(Connecting())
        # True while every stream that matters is synchronized on the current socket.
        self.complete: Observable[bool] = Observable(False)
        self._backoff = backoff or Backoff()
        self._ping_interval = ping_interval
        self._open_timeout = open_timeout
        self._opened: set[str] = set()
        self._handles: dict[str, StreamHandle] = {}
        self._synced: set[str | None] = set()
        self._refused: set[str] = set()
        self._listeners: list[Callable[[StreamUpdate], None]] = []
        self._conn: Connection | None = None
        self._reconcile = asyncio.Event()
        self._stopping = False
        self._stopped = asyncio.Event()
        self._ever_live = False
        self._reached_live = False

    # -- observation -----------------------------------------------------------------------

    def on_update(self, callback: Callable[[StreamUpdate], None]) -> Callable[[], None]:
        """Call `callback` after every applied batch; returns the function that stops it."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    @property
    def subscribed_threads(self) -> frozenset[str]:
        return frozenset(self._handles)

    async def wait_synchronized(self, timeout: float) -> ConnectionState:
        """Wait until every stream of interest is synchronized; returns early on `Failed`.

        Raises `TimeoutError` naming the last state and its error.
        """

        async def settled() -> ConnectionState:
            while True:
                state = await self.state.wait_for(lambda s: isinstance(s, Live | Failed))
                if isinstance(state, Failed):
                    return state
                await self.complete.wait_for(bool)
                if isinstance(self.state.value, Live):
                    return self.state.value

        try:
            return await asyncio.wait_for(settled(), timeout)
        except TimeoutError:
            state = self.state.value
            if isinstance(state, Syncing | Stale | Live):
                message = f"connected, but not synchronized within {timeout:g}s"
            elif isinstance(state, Reconnecting):
                message = f"no connection within {timeout:g}s: {state.last_error}"
            else:
                message = f"no connection within {timeout:g}s"
            raise TimeoutError(message) from None

    # -- interest ------------------------------------------------------------------------

    def open_thread(self, thread_id: str) -> bool:
        """Keep `thread_id` subscribed (the user opened it), whatever the model thinks.

        Returns False when it was already open, so the caller knows not to close it.
        """
        if thread_id in self._opened:
            return False
        self._opened.add(thread_id)
        self._reconcile.set()
        return True

    def close_thread(self, thread_id: str) -> None:
        self._opened.discard(thread_id)
        self._reconcile.set()

    # -- commands ------------------------------------------------------------------------

    async def dispatch(self, command: Any) -> CommandOutcome:
        """Send a command: a protocol command model, or its wire dict, holding a `commandId`.

        The outcome is `Unknown` when no answer arrives; retry by dispatching the SAME command
        again: its `commandId` is kept, so the server applies it at most once.
        """
        payload = command if isinstance(command, dict) else command.to_wire()
        conn = self._conn
        if conn is None or not conn.is_open:
            return Unknown(f"not connected ({self.state.value.kind}); the command was not sent")
        try:
            return accepted(await conn.call(DISPATCH_COMMAND, payload))
        except (ConnectionLost, RpcFailure) as exc:
            return from_error(exc)

    async def dispatch_until_known(self, command: Any, timeout: float) -> CommandOutcome:
        """`dispatch`, and while the outcome is unknown, wait for the socket and send the same
        command again (same `commandId`), until `timeout` seconds have passed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        outcome = await self.dispatch(command)
        while isinstance(outcome, Unknown) and loop.time() < deadline:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self.state.wait_for(lambda s: isinstance(s, Live | Failed)),
                    deadline - loop.time(),
                )
            if isinstance(self.state.value, Failed):
                break
            if isinstance(self.state.value, Live):
                outcome = await self.dispatch(command)
        return outcome

    async def wait_until(
        self, predicate: Callable[[], T | None], timeout: float, *, tick: float = 0.25
    ) -> T | None:
        """Re-check `predicate` after every applied batch (and every `tick` s, for deadlines);
        its first truthy value, or None when `timeout` passes first."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        wake = asyncio.Event()
        stop = self.on_update(lambda _update: wake.set())
        try:
            while True:
                wake.clear()
                value = predicate()
                remaining = deadline - loop.time()
                if value or remaining <= 0:
                    return value or None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), min(tick, remaining))
        finally:
            stop()

    async def call(self, tag: str, payload: dict[str, Any]) -> Any:
        """A unary read on the current socket (e.g. `getThreadProjection`)."""
        conn = self._conn
        if conn is None or not conn.is_open:
            raise ConnectionLost(f"not connected ({self.state.value.kind})")
        return await conn.call(tag, payload)

    # -- lifecycle -----------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, sync, and reconnect after every drop, until `stop()` or a fatal error.

        Ends with `state` = `Failed(reason)`; a fatal error is also re-raised.
        """
        attempt = 0
        while not self._stopping:
            self._reached_live = False
            try:
                reason = await self._one_connection()
            except FatalError as exc:
                self.state.set(Failed(str(exc)))
                raise
            except ClientError as exc:
                reason = str(exc)
            except (OSError, TimeoutError) as exc:
                reason = describe(exc)
            if self._stopping:
                break
            self.sink.mark_stale()
            # Count from the top again only after a connection that really worked, so a
            # server that accepts and then drops at once is not hammered with zero delays.
            attempt = 1 if self._reached_live else attempt + 1
            self.state.set(Reconnecting(attempt, reason))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopped.wait(), self._backoff.delay(attempt))
        self.state.set(Failed("stopped"))

    async def stop(self) -> None:
        self._stopping = True
        self._stopped.set()
        conn = self._conn
        if conn is not None:
            await conn.close("stopped by client")

    async def _one_connection(self) -> str:
        ws = await open_socket(self.target, open_timeout=self._open_timeout)
        conn = Connection(ws, ping_interval=self._ping_interval)
        if self._stopping:  # stop() came while the handshake was in flight
            await conn.close("stopped by client")
            return "stopped by client"
        conn.start()
        self._conn = conn
        self._handles.clear()
        self._synced.clear()
        self._refused.clear()
        self.complete.set(False)
        reconciler: asyncio.Task[None] | None = None
        try:
            self.state.set(Stale() if self._ever_live else Syncing())
            await conn.call(SERVER_GET_CONFIG, {})
            await self._subscribe(conn, SHELL)
            reconciler = asyncio.create_task(self._reconcile_loop(conn), name="t3tui-interest")
            self._reconcile.set()
            return await conn.closed
        except RpcFailure as exc:
            raise ClientError(f"server refused a read: {exc}") from None
        finally:
            if reconciler is not None:
                reconciler.cancel()
            await conn.close("connection ended")
            self._conn = None
            self._handles.clear()
            self._synced.clear()
            self.complete.set(False)

    # -- streams -------------------------------------------------------------------------

    async def _subscribe(self, conn: Connection, thread_id: str | None) -> None:
        self._synced.discard(thread_id)
        if thread_id is SHELL:
            payload = _resume({}, self.sink.cursor_shell)
            handle = await conn.open_stream(SUBSCRIBE_SHELL, payload, self._on_shell)
            handle.done.add_done_callback(lambda f: self._shell_ended(conn, f))
            return
        payload = _resume({"threadId": thread_id}, self.sink.cursor_thread(thread_id))
        handle = await conn.open_stream(
            SUBSCRIBE_THREAD, payload, lambda values: self._on_thread(thread_id, values)
        )
        self._handles[thread_id] = handle
        handle.done.add_done_callback(lambda f: self._thread_ended(thread_id, handle, f))

    def _on_shell(self, values: list[Any]) -> None:
        applied = 0
        for raw in values:
            item = _decode(decode_shell_item, raw, "shell")
            if item is None or is_duplicate(item, self.sink.cursor_shell):
                continue
            if is_marker(item):
                self._synced.add(SHELL)
            applied += _apply(self.sink.apply_shell, item, "shell")
        self._after_batch(SHELL, applied)

    def _on_thread(self, thread_id: str, values: list[Any]) -> None:
        applied = 0
        for raw in values:
            item = _decode(decode_thread_item, raw, f"thread {thread_id}")
            if item is None or is_duplicate(item, self.sink.cursor_thread(thread_id)):
                continue
            if is_marker(item):
                self._synced.add(thread_id)
            applied += _apply(
                lambda i: self.sink.apply_thread(thread_id, i), item, f"thread {thread_id}"
            )
        self._after_batch(thread_id, applied)

    def _after_batch(self, thread_id: str | None, applied: int) -> None:
        self._reconcile.set()
        self._update_state()
        if applied:
            update = StreamUpdate(thread_id, applied, thread_id in self._synced)
            for listener in list(self._listeners):
                listener(update)

    def _wanted(self) -> set[str]:
        return (set(self.sink.threads_of_interest()) | self._opened) - self._refused

    def _update_state(self) -> None:
        if self._conn is None or SHELL not in self._synced:
            self.complete.set(False)
            return
        # Compare with what is wanted, not only with what was requested: the shell's
        # `synchronized` can arrive before the first thread subscription goes out.
        complete = self._wanted() <= self._synced
        self.complete.set(complete)
        if complete:
            self._ever_live = self._reached_live = True
            self.state.set(Live())

    def _shell_ended(self, conn: Connection, future: asyncio.Future[None]) -> None:
        # Orchestration streams never end on their own; if the shell does, start over.
        if conn.is_open:
            error = None if future.cancelled() else future.exception()
            reason = "shell stream ended" if error is None else f"shell stream failed: {error}"
            conn.abort(reason)

    def _thread_ended(
        self, thread_id: str, handle: StreamHandle, future: asyncio.Future[None]
    ) -> None:
        if self._handles.get(thread_id) is not handle:
            return  # unsubscribed on purpose, or already replaced
        del self._handles[thread_id]
        self._synced.discard(thread_id)
        error = None if future.cancelled() else future.exception()
        if isinstance(error, RpcFailure):
            # e.g. an unknown thread: do not ask again on this socket.
            log.info("thread stream %s refused: %s", thread_id, error)
            self._refused.add(thread_id)
        self._update_state()

    async def _reconcile_loop(self, conn: Connection) -> None:
        while conn.is_open:
            await self._reconcile.wait()
            self._reconcile.clear()
            wanted = self._wanted()
            try:
                for thread_id in sorted(wanted - set(self._handles)):
                    await self._subscribe(conn, thread_id)
                for thread_id in sorted(set(self._handles) - wanted):
                    handle = self._handles.pop(thread_id)
                    self._synced.discard(thread_id)
                    await handle.interrupt()
                    self.sink.forget_thread(thread_id)
            except ConnectionLost:
                return
            self._update_state()


def _resume(payload: dict[str, Any], cursor: int | None) -> dict[str, Any]:
    """Ask for the `synchronized` marker, and resume after the cursor when there is one."""
    payload["requestCompletionMarker"] = True
    if cursor is not None:
        payload["afterSequence"] = cursor
    return payload


def _apply(apply: Callable[[Any], Any], item: Any, where: str) -> int:
    """Apply one item; one the model refuses (it changes nothing) is logged and skipped."""
    try:
        apply(item)
    except ValueError as exc:
        log.warning("the model refused a %s item: %s", where, exc)
        return 0
    return 1


def _decode(decoder: Callable[[Any], Any], raw: Any, where: str) -> Any:
    """Decode one item; a malformed one is logged and skipped so the stream keeps running."""
    try:
        return decoder(raw)
    except ProtocolError as exc:
        log.warning("skipped a malformed %s item: %s", where, exc.message)
        return None
