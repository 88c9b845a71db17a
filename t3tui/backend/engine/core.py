"""The engine's state, and the one path by which it changes: a batch of events.

A batch applies each event to the in-memory projections as it is added (so a handler sees its
own changes), then commits them to the store in one transaction. If the handler raises, or the
store fails, the touched projections are restored. Listeners hear every stored event in order,
right after the commit; effects (talking to providers) run after that.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from t3tui.backend.engine.ids import new_id
from t3tui.backend.engine.projection import ThreadState, Undo
from t3tui.backend.store import EventStore, StoredEvent, StoreError
from t3tui.protocol import format_ts

log = logging.getLogger(__name__)

# events that can change what the scheduler, finalizer or wake planner should do next
REACTIVE_PREFIXES = ("run.", "subagent.", "thread.")


class Batch:
    """Events of one command (or one engine step), committed together."""

    def __init__(self, core: Core, command_id: str | None, result: dict[str, Any] | None) -> None:
        self.core = core
        self.command_id = command_id
        self.result = result
        self.events: list[dict[str, Any]] = []
        self.effects: list[Callable[[], Any]] = []
        # newest last: (thread id, what `ThreadState.apply` returned, or None for a new thread)
        self._undo: list[tuple[str, Undo | None]] = []
        self.sequence = 0  # the last sequence this batch wrote (head, if it wrote none)

    def add(
        self,
        thread_id: str,
        etype: str,
        payload: dict[str, Any],
        *,
        run_id: str | None = None,
        node_id: str | None = None,
    ) -> dict[str, Any]:
        """Apply one event now and queue it for the commit."""
        event: dict[str, Any] = {"id": new_id("evt"), "threadId": thread_id}
        if run_id is not None:
            event["runId"] = run_id
        if node_id is not None:
            event["nodeId"] = node_id
        event.update({"occurredAt": self.core.now(), "type": etype, "payload": payload})
        threads = self.core.threads
        state = threads.get(thread_id)
        if state is None:
            state = threads[thread_id] = ThreadState()
            self._undo.append((thread_id, None))
        self._undo.append((thread_id, state.apply(event)))
        self.events.append(event)
        return event

    def after(self, effect: Callable[[], Any]) -> None:
        """Run `effect` once the batch is stored and heard."""
        self.effects.append(effect)

    def rollback(self) -> None:
        threads = self.core.threads
        for thread_id, token in reversed(self._undo):
            if token is None:
                threads.pop(thread_id, None)
            elif (state := threads.get(thread_id)) is not None:
                state.undo(token)
        self._undo.clear()


class Core:
    """Projections of every thread, the store, listeners and the change pulse."""

    def __init__(self, store: EventStore, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.clock = clock
        self.threads: dict[str, ThreadState] = {}
        self.projects: list[dict[str, Any]] = []
        self._listeners: list[Callable[[StoredEvent], None]] = []
        self._open: Batch | None = None
        self._pulse = asyncio.Event()
        self.on_committed: Callable[[list[dict[str, Any]]], None] | None = None
        # frames waiting for the store's writer: (ticket, future), see `written`
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []

    def now(self) -> str:
        return format_ts(self.clock())

    @property
    def head(self) -> int:
        return self.store.head

    def replay(self) -> int:
        """Rebuild every projection from the store; returns the number of events."""
        count = 0
        for sequence, _, event in self.store.raw_after(0):
            thread_id = event.get("threadId")
            if not isinstance(thread_id, str):
                self.store.report_bad(sequence, "it has no threadId")
                continue
            state = self.threads.get(thread_id)
            if state is None:
                state = self.threads[thread_id] = ThreadState()
            try:
                state.apply(event)
            except Exception as exc:  # one unusable stored event must not stop the server
                self.store.report_bad(sequence, f"{type(exc).__name__}: {exc}")
                continue
            count += 1
        return count

    @contextmanager
    def batch(self, command_id: str | None = None, result: dict[str, Any] | None = None
              ) -> Iterator[Batch]:
        if self._open is not None:
            raise RuntimeError("a batch is already open; engine steps must not nest")
        batch = Batch(self, command_id, result)
        self._open = batch
        try:
            yield batch
            stored = self._store(batch)
        except BaseException:
            batch.rollback()
            raise
        finally:
            self._open = None
        self._publish(stored)
        for effect in batch.effects:
            try:
                effect()
            except Exception:  # a provider hiccup must not undo a stored command
                log.exception("engine effect failed")
        if self.on_committed is not None and any(
            e["type"].startswith(REACTIVE_PREFIXES) for e in batch.events
        ):
            self.on_committed(batch.events)

    def _store(self, batch: Batch) -> list[StoredEvent]:
        stored: list[StoredEvent] = []
        if batch.events or batch.command_id is not None:
            stored = self.store.append(batch.command_id, batch.events, batch.result)
        batch.sequence = self.store.head
        return stored

    def _publish(self, stored: list[StoredEvent]) -> None:
        for event in stored:
            for listener in list(self._listeners):
                try:
                    listener(event)
                except Exception:
                    log.exception("event listener failed")
        if stored:
            pulse, self._pulse = self._pulse, asyncio.Event()
            pulse.set()

    # The wire's gate (`RpcConnection`): a frame made now is written once every append made so
    # far is committed, so that no client sees an event, or state or an answer derived from
    # one, before it is stored (the store commits in groups, on its writer thread).

    def mark(self) -> int:
        return self.store.ticket

    def passed(self, mark: int) -> bool:
        return self.store.written >= mark

    async def written(self, mark: int) -> None:
        """Wait until every append up to ticket `mark` is committed (`StoreError` if the store
        can no longer write)."""
        writer = self.store.writer
        if writer.on_written is None:
            loop = asyncio.get_running_loop()
            writer.on_written = lambda ticket: loop.call_soon_threadsafe(self._written, ticket)
        if self.store.written >= mark:
            return
        if writer.failed is not None:
            raise StoreError(writer.failed)
        future = asyncio.get_running_loop().create_future()
        self._waiters.append((mark, future))
        await future

    def _written(self, ticket: int | None) -> None:
        waiting = []
        for mark, future in self._waiters:
            if future.done():
                continue
            if ticket is None:
                future.set_exception(StoreError(self.store.writer.failed or "store failed"))
            elif mark <= ticket:
                future.set_result(None)
            else:
                waiting.append((mark, future))
        self._waiters = waiting

    def listen(self, callback: Callable[[StoredEvent], None]) -> Callable[[], None]:
        self._listeners.append(callback)

        def unlisten() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unlisten

    async def changed(self, timeout: float | None) -> bool:
        """Wait for the next commit; False on timeout. A cancellation always propagates."""
        pulse = self._pulse
        # not `asyncio.wait_for`: on 3.11 it swallows a cancel that lands in the same tick as
        # the pulse, and an interrupt's own commit is exactly such a pulse (a hung wait then
        # survived run.interrupt)
        try:
            async with asyncio.timeout(timeout):
                await pulse.wait()
        except TimeoutError:
            return False
        return True
