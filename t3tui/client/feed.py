"""The streams of one socket: the shell plus the thread streams of interest, fed to the model.

One `Feed` lives as long as its connection. It hands every decoded item to the sink, except
items at or below the sink's cursor (never a duplicate), tracks which streams reached
`synchronized` on this socket, and keeps the thread subscriptions equal to what is wanted.

Which threads are wanted is asked of the sink at most once per `INTEREST_S` (the screen's frame
cadence), not after every batch: the answer reads the facts of the threads that changed, and a
burst changes a thread many times per frame (a look per batch cost more than applying the
items). The first batch after a quiet spell is looked at at once; the ones that follow within
the interval are looked at together when it ends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from t3tui.client.connection import Connection, StreamHandle
from t3tui.client.errors import ConnectionLost, RpcFailure
from t3tui.client.items import envelope, is_duplicate, is_marker, readable
from t3tui.protocol import ProtocolError
from t3tui.protocol.methods import SUBSCRIBE_SHELL, SUBSCRIBE_THREAD

log = logging.getLogger(__name__)

SHELL = None  # the key of the shell stream among the thread ids
INTEREST_S = 1 / 30  # the least time between two looks at what is wanted (the frame cadence)


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


class Feed:
    """Subscriptions of one connection. `on_batch` runs after every chunk and every change of
    subscriptions; its `items` is 0 when nothing was applied."""

    def __init__(
        self,
        conn: Connection,
        sink: Sink,
        wanted: Callable[[], AbstractSet[str]],
        on_batch: Callable[[StreamUpdate], None],
    ) -> None:
        self._conn = conn
        self._sink = sink
        self._session_wants = wanted
        self._on_batch = on_batch
        self._handles: dict[str, StreamHandle] = {}
        self._synced: set[str | None] = set()
        self._refused: set[str] = set()
        self._dirty = asyncio.Event()
        self._reconciled: AbstractSet[str] | None = None  # what the reconciler last worked towards
        self._task: asyncio.Task[None] | None = None
        self._wants: AbstractSet[str] | None = None  # the sink's last answer (see `wanted`)
        self._looked_at = -INTEREST_S  # loop time of the last look after a batch
        self._look_later: asyncio.TimerHandle | None = None
        # `complete` is asked after every batch and compares every wanted thread: its answer is
        # kept until what is wanted (the sink's answer, by identity) or what is synced changes
        self._synced_version = 0
        self._completed: tuple[AbstractSet[str] | None, int, bool] | None = None

    @property
    def subscribed(self) -> frozenset[str]:
        return frozenset(self._handles)

    def wanted(self) -> AbstractSet[str]:
        """What the sink wants now (asked afresh; `complete` reads the last answer)."""
        self._wants = wants = self._session_wants()
        return wants - self._refused if self._refused else wants

    def _last_wanted(self) -> AbstractSet[str]:
        wants = self._wants
        if wants is None:
            return self.wanted()
        return wants - self._refused if self._refused else wants

    def complete(self) -> bool:
        """The shell and every wanted thread stream reached `synchronized` on this socket.

        Compared with what is wanted, not with what was requested: the shell's marker can
        arrive before the first thread subscription goes out. What is wanted is the last
        answer (at most `INTEREST_S` old): a change after it is looked at when the interval
        ends, and the session told then.
        """
        kept = self._completed
        if kept is not None and kept[0] is self._wants and kept[1] == self._synced_version:
            return kept[2]
        done = SHELL in self._synced and self._last_wanted() <= self._synced
        self._completed = (self._wants, self._synced_version, done)
        return done

    def _synced_now(self, stream: str | None, synced: bool) -> None:
        """`stream` reached `synchronized` on this socket (or no longer has)."""
        if synced:
            self._synced.add(stream)
        else:
            self._synced.discard(stream)
        self._synced_version += 1

    async def start(self) -> None:
        await self._subscribe(SHELL)
        self._task = asyncio.create_task(self._reconcile_loop(), name="t3tui-interest")
        self.reconcile()

    def reconcile(self) -> None:
        """Bring the thread subscriptions in line with `wanted()` soon."""
        self._dirty.set()

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._look_later is not None:
            self._look_later.cancel()
            self._look_later = None

    async def _subscribe(self, thread_id: str | None) -> None:
        self._synced_now(thread_id, False)
        if thread_id is SHELL:
            payload = _resume({}, self._sink.cursor_shell)
            handle = await self._conn.open_stream(SUBSCRIBE_SHELL, payload, self._on_shell)
            handle.done.add_done_callback(self._shell_ended)
            return
        payload = _resume({"threadId": thread_id}, self._sink.cursor_thread(thread_id))
        handle = await self._conn.open_stream(
            SUBSCRIBE_THREAD, payload, lambda values: self._on_thread(thread_id, values)
        )
        self._handles[thread_id] = handle
        handle.done.add_done_callback(lambda f: self._thread_ended(thread_id, handle, f))

    def _on_shell(self, values: list[Any]) -> None:
        applied = 0
        for raw in values:
            item = _decode(raw, SHELL)
            if item is None or is_duplicate(item, self._sink.cursor_shell):
                continue
            if is_marker(item):
                self._synced_now(SHELL, True)
            applied += _apply(self._sink.apply_shell, item, SHELL)
        self._batch_done(SHELL, applied)

    def _on_thread(self, thread_id: str, values: list[Any]) -> None:
        applied = 0
        apply = partial(self._sink.apply_thread, thread_id)
        for raw in values:
            item = _decode(raw, thread_id)
            if item is None or is_duplicate(item, self._sink.cursor_thread(thread_id)):
                continue
            if is_marker(item):
                self._synced_now(thread_id, True)
            applied += _apply(apply, item, thread_id)
        self._batch_done(thread_id, applied)

    def _batch_done(self, thread_id: str | None, applied: int) -> None:
        if self._look_later is None:
            loop = asyncio.get_running_loop()
            wait = self._looked_at + INTEREST_S - loop.time()
            if wait <= 0:
                self._look(loop)
            else:
                self._look_later = loop.call_later(wait, self._look_at_end)
        self._on_batch(StreamUpdate(thread_id, applied, thread_id in self._synced))

    def _look(self, loop: asyncio.AbstractEventLoop) -> None:
        # Wake the reconciler only when the wanted threads changed: most looks change no
        # interest, and a task wake-up each time cost more than the model's work.
        self._looked_at = loop.time()
        if self.wanted() != self._reconciled:
            self.reconcile()

    def _look_at_end(self) -> None:
        """The interval after a look ended with batches not looked at: look now, and tell the
        session when that made the streams complete or not (no batch may follow to say so)."""
        self._look_later = None
        if not self._conn.is_open:
            return
        before = self.complete()
        self._look(asyncio.get_running_loop())
        if self.complete() != before:
            self._on_batch(StreamUpdate(SHELL, 0, SHELL in self._synced))

    def _shell_ended(self, future: asyncio.Future[None]) -> None:
        # Orchestration streams never end on their own; if the shell does, start over.
        if self._conn.is_open:
            error = None if future.cancelled() else future.exception()
            reason = "shell stream ended" if error is None else f"shell stream failed: {error}"
            self._conn.abort(reason)

    def _thread_ended(
        self, thread_id: str, handle: StreamHandle, future: asyncio.Future[None]
    ) -> None:
        if self._handles.get(thread_id) is not handle:
            return  # unsubscribed on purpose, or already replaced
        del self._handles[thread_id]
        self._synced_now(thread_id, False)
        error = None if future.cancelled() else future.exception()
        if isinstance(error, RpcFailure):
            # e.g. an unknown thread: do not ask again on this socket.
            log.info("thread stream %s refused: %s", thread_id, error)
            self._refused.add(thread_id)
            self._synced_version += 1
        self._on_batch(StreamUpdate(thread_id, 0, False))

    async def _reconcile_loop(self) -> None:
        while self._conn.is_open:
            await self._dirty.wait()
            self._dirty.clear()
            wanted = self._reconciled = self.wanted()
            try:
                for thread_id in sorted(wanted - set(self._handles)):
                    await self._subscribe(thread_id)
                for thread_id in sorted(set(self._handles) - wanted):
                    handle = self._handles.pop(thread_id)
                    self._synced_now(thread_id, False)
                    await handle.interrupt()
                    self._sink.forget_thread(thread_id)
            except ConnectionLost:
                return
            # Fewer wanted threads can complete the sync without any new item.
            self._on_batch(StreamUpdate(SHELL, 0, SHELL in self._synced))


def _resume(payload: dict[str, Any], cursor: int | None) -> dict[str, Any]:
    """Ask for the `synchronized` marker, and resume after the cursor when there is one."""
    payload["requestCompletionMarker"] = True
    if cursor is not None:
        payload["afterSequence"] = cursor
    return payload


def _where(stream: str | None) -> str:
    """The stream's name in a log line (built only when one is written, not per item)."""
    return "shell" if stream is SHELL else f"thread {stream}"


def _apply(apply: Callable[[Any], Any], item: Any, stream: str | None) -> int:
    """Apply one item; one the model refuses (it changes nothing) is logged and skipped."""
    try:
        apply(item)
    except ValueError as exc:
        log.warning("the model refused a %s item: %s", _where(stream), exc)
        return 0
    return 1


def _decode(raw: Any, stream: str | None) -> dict[str, Any] | None:
    """The item as it was on the wire, when its envelope is readable (`items.envelope`); a
    malformed one is logged and skipped so the stream keeps running. The model reads the wire
    object and refuses what it cannot apply; typed items are decoded by whoever wants them.
    Inside a shell snapshot the model keeps every row it can read (one bad row costs only
    itself: a row without a string id is left out)."""
    if readable(raw):
        return raw  # the common case, without naming the stream
    where = _where(stream)
    try:
        return envelope(raw, f"{where} stream item")
    except ProtocolError as exc:
        log.warning("skipped a malformed %s item: %s", where, exc.message)
        return None
