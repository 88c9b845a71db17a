"""Observable connection state: what the socket is doing and whether the data shown is current."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar


@dataclass(frozen=True)
class Connecting:
    """First connect in progress; nothing is known yet."""

    kind = "connecting"
    stale = False


@dataclass(frozen=True)
class Syncing:
    """Connected for the first time; the streams have not reached `synchronized` yet."""

    kind = "syncing"
    stale = False


@dataclass(frozen=True)
class Live:
    """Every subscribed stream is synchronized; the data is current."""

    kind = "live"
    stale = False


@dataclass(frozen=True)
class Reconnecting:
    """The socket dropped; the data shown is from before the drop."""

    attempt: int
    last_error: str
    kind = "reconnecting"
    stale = True


@dataclass(frozen=True)
class Stale:
    """Connected again and resubscribed; catching up, so the data may still be old."""

    kind = "stale"
    stale = True


@dataclass(frozen=True)
class Failed:
    """Gave up for good (wrong protocol, authentication, or stopped); `reason` says why."""

    reason: str
    kind = "failed"
    stale = True


ConnectionState = Connecting | Syncing | Live | Reconnecting | Stale | Failed

T = TypeVar("T")
log = logging.getLogger(__name__)


class Observable(Generic[T]):
    """A current value plus change notification by callback or async iteration."""

    def __init__(self, value: T) -> None:
        self._value = value
        self._callbacks: list[Callable[[T], None]] = []
        self._queues: list[asyncio.Queue[T]] = []

    @property
    def value(self) -> T:
        return self._value

    def set(self, value: T) -> None:
        if value == self._value:
            return
        self._value = value
        for queue in self._queues:
            queue.put_nowait(value)
        for callback in list(self._callbacks):
            try:
                callback(value)
            except Exception:
                # One broken listener must not stop the others or the producer.
                log.exception("state listener failed")

    def subscribe(self, callback: Callable[[T], None]) -> Callable[[], None]:
        """Call `callback` on every change; returns the function that stops it."""
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback)

    async def changes(self) -> AsyncIterator[T]:
        """The current value, then every later one, for as long as the consumer iterates."""
        queue: asyncio.Queue[T] = asyncio.Queue()
        queue.put_nowait(self._value)
        self._queues.append(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            self._queues.remove(queue)

    async def wait_for(self, predicate: Callable[[T], bool]) -> T:
        """Return the first value (current included) for which `predicate` holds."""
        async for value in self.changes():
            if predicate(value):
                return value
        raise AssertionError("unreachable")  # pragma: no cover
