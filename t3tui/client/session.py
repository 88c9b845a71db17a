"""The supervised connection: reconnect with resume, commands, waits, observable state.

The session owns the socket; the model (`Supervisor`, the sink) owns the data and its cursors.
Each socket gets a `Feed` that subscribes the streams and hands their items to the sink.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any, TypeVar

from t3tui.client import collector
from t3tui.client.backoff import Backoff
from t3tui.client.connection import Connection
from t3tui.client.errors import (
    ClientError,
    ConnectError,
    ConnectionLost,
    FatalError,
    RpcFailure,
    describe,
)
from t3tui.client.feed import Feed, Sink, StreamUpdate
from t3tui.client.handshake import open_socket
from t3tui.client.outcome import CommandOutcome, Unknown, accepted, from_error
from t3tui.client.recorder import Recorder
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
from t3tui.client.waiting import paused_for, wait_for_update
from t3tui.model.interest import WATCH_CAP_ENV
from t3tui.protocol.methods import DISPATCH_COMMAND, SERVER_GET_CONFIG

__all__ = ["Session", "Sink", "StreamUpdate"]

log = logging.getLogger(__name__)

T = TypeVar("T")


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
        recorder: Recorder | None = None,
        request_timeout: float = 10.0,
        sync_timeout: float = 30.0,
        watch_cap: int | None = None,
    ) -> None:
        """`recorder`: keeps every frame of every connection (`t3tui.client.recorder`);
        `watch_cap`: thread streams held at once (default: $T3TUI_WATCH_CAP, else the model's
        `DetectorConfig.watch_cap`)."""
        self.target = target
        self.recorder = recorder
        self.sink = sink
        cap = watch_cap if watch_cap is not None else cap_from_env()
        if cap is not None and (set_cap := getattr(sink, "set_watch_cap", None)) is not None:
            set_cap(cap)
        self.state: Observable[ConnectionState] = Observable(Connecting())
        # True while every stream that matters is synchronized on the current socket.
        self.complete: Observable[bool] = Observable(False)
        self._backoff = backoff or Backoff()
        self._ping_interval = ping_interval
        self._open_timeout = open_timeout
        # A server that holds the socket and answers Ping but never answers a request (or never
        # sends `synchronized`) must not keep us waiting for ever: past these deadlines the
        # connection is dropped, saying what it waited for, and reconnected with back-off.
        self._request_timeout = request_timeout
        self._sync_timeout = sync_timeout
        self._progress_at = 0.0
        # What the current connection attempt waits for, for a timeout's message.
        self.waiting_for = "a connection"
        # The last attempt failed because nothing listens there (connection refused).
        self.refused = False
        self._opened: set[str] = set()
        self._listeners: list[Callable[[StreamUpdate], None]] = []
        self._conn: Connection | None = None
        self._feed: Feed | None = None
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
        return frozenset() if self._feed is None else self._feed.subscribed

    async def wait_synchronized(
        self, timeout: float, *, refused_after: float | None = None
    ) -> ConnectionState:
        """Wait until every stream of interest is synchronized; returns early on `Failed`.

        Raises `TimeoutError` naming the last state and its error. With `refused_after`, a
        server that refuses the connection (nothing listens there) is an answer: once
        attempts have been refused for that many seconds, raise `ConnectError` at once
        instead of waiting out `timeout`.
        """
        loop = asyncio.get_running_loop()
        start = loop.time()

        def refused(s: ConnectionState) -> bool:
            return (refused_after is not None and isinstance(s, Reconnecting) and self.refused
                    and loop.time() - start >= refused_after)

        async def settled() -> ConnectionState:
            while True:
                state = await self.state.wait_for(
                    lambda s: isinstance(s, Live | Failed) or refused(s))
                if isinstance(state, Reconnecting):
                    raise ConnectError(state.last_error)
                if isinstance(state, Failed):
                    return state
                await self.complete.wait_for(bool)
                if isinstance(self.state.value, Live):
                    return self.state.value

        try:
            async with asyncio.timeout(timeout):
                return await settled()
        except TimeoutError:
            state = self.state.value
            if isinstance(state, Syncing | Stale | Live):
                message = (f"connected, but not synchronized within {timeout:g}s "
                           f"(waiting for {self.waiting_for})")
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
        if self._feed is not None:
            self._feed.reconcile()
        return True

    def close_thread(self, thread_id: str) -> None:
        self._opened.discard(thread_id)
        if self._feed is not None:
            self._feed.reconcile()

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
                async with asyncio.timeout(deadline - loop.time()):
                    await self.state.wait_for(lambda s: isinstance(s, Live | Failed))
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
        return await wait_for_update(self.on_update, predicate, timeout, tick)

    def note(self, kind: str, data: dict[str, Any]) -> None:
        """A client-side fact for the recording, if there is one (e.g. a check-in's deadline)."""
        if self.recorder is not None:
            self.recorder.note(kind, data)

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
            except Exception as exc:
                # Not a network failure we know how to retry (e.g. httpx.InvalidURL): end
                # Failed with the reason, so no one waits on a session that died.
                self.state.set(Failed(describe(exc)))
                raise
            if self._stopping:
                break
            self.sink.mark_stale()
            # Count from the top again only after a connection that really worked, so a
            # server that accepts and then drops at once is not hammered with zero delays.
            attempt = 1 if self._reached_live else attempt + 1
            self.state.set(Reconnecting(attempt, reason))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._backoff.delay(attempt)):
                    await self._stopped.wait()
        self.state.set(Failed("stopped"))

    async def stop(self) -> None:
        self._stopping = True
        self._stopped.set()
        conn = self._conn
        if conn is not None:
            await conn.close("stopped by client")

    async def _one_connection(self) -> str:
        self.waiting_for = "a connection"
        seen: list[Any] = []
        try:
            ws = await open_socket(self.target, open_timeout=self._open_timeout,
                                   on_descriptor=seen.append)
        except ConnectError as exc:
            self.refused = exc.refused
            raise
        self.refused = False
        conn = Connection(ws, ping_interval=self._ping_interval, tap=self.recorder)
        if self._stopping:  # stop() came while the handshake was in flight
            await conn.close("stopped by client")
            return "stopped by client"
        if self.recorder is not None:
            self.recorder.connected(seen[-1])
        conn.start()
        feed = Feed(conn, self.sink, self._wanted, self._on_batch)
        self._conn, self._feed = conn, feed
        self.complete.set(False)
        try:
            self.state.set(Stale() if self._ever_live else Syncing())
            self.waiting_for = f"an answer to {SERVER_GET_CONFIG}"
            try:
                async with asyncio.timeout(self._request_timeout):
                    await conn.call(SERVER_GET_CONFIG, {})
            except TimeoutError:
                raise ClientError(f"no answer to {SERVER_GET_CONFIG} within "
                                  f"{self._request_timeout:g}s") from None
            self.waiting_for = "the streams' `synchronized`"
            self._progress_at = asyncio.get_running_loop().time()
            async with asyncio.timeout(self._request_timeout):
                await feed.start()
            deadline = asyncio.create_task(self._sync_deadline(conn, feed), name="t3tui-sync")
            try:
                return await conn.closed
            finally:
                deadline.cancel()
        except TimeoutError:
            raise ClientError(f"no answer to a subscription within {self._request_timeout:g}s"
                              ) from None
        except RpcFailure as exc:
            raise ClientError(f"server refused a read: {exc}") from None
        finally:
            feed.close()
            await conn.close("connection ended")
            if self.recorder is not None:
                self.recorder.disconnected(conn.closed.result() if conn.closed.done()
                                           else "connection ended")
            self._conn = self._feed = None
            self.complete.set(False)

    async def _sync_deadline(self, conn: Connection, feed: Feed) -> None:
        """Drop a connection whose streams stop making progress before `synchronized`: a
        server that replays history keeps sending chunks; one that sends nothing for
        `sync_timeout` seconds while a stream is not synchronized is stuck. Seconds this
        process was paused (`paused_for`) are not the server's: they are not counted."""
        loop = asyncio.get_running_loop()
        while conn.is_open:
            if feed.complete():
                self._progress_at = loop.time()
            idle = loop.time() - self._progress_at
            if idle >= self._sync_timeout:
                conn.abort(f"no `synchronized` from the server within {self._sync_timeout:g}s")
                return
            wait, before = min(1.0, self._sync_timeout - idle), loop.time()
            await asyncio.sleep(wait)
            self._progress_at += paused_for(wait, loop.time() - before)

    def _wanted(self) -> AbstractSet[str]:
        # asked twice per batch: no copy of the model's (frozen) answer unless one is needed
        interest = self.sink.threads_of_interest()
        if self._opened or not isinstance(interest, AbstractSet):
            return set(interest) | self._opened
        return interest

    def _on_batch(self, update: StreamUpdate) -> None:
        if update.items:
            self._progress_at = asyncio.get_running_loop().time()
        feed = self._feed
        complete = feed is not None and feed.complete()
        self.complete.set(complete)
        if complete:
            if not self._ever_live:
                collector.synced()  # the process's first full tree: what stays is frozen
            self._ever_live = self._reached_live = True
            if not isinstance(self.state.value, Live):  # not a new Live() per batch
                self.state.set(Live())
        if update.items:
            for listener in list(self._listeners):
                listener(update)


def cap_from_env() -> int | None:
    """$T3TUI_WATCH_CAP as a positive number of streams; anything else is ignored (logged)."""
    text = os.environ.get(WATCH_CAP_ENV)
    if not text:
        return None
    try:
        cap = int(text)
    except ValueError:
        cap = 0
    if cap <= 0:
        log.warning("%s must be a positive whole number of streams; ignored", WATCH_CAP_ENV)
        return None
    return cap
