"""What every read-only source (recorded frames, a replay) answers to the app's actions.

Such a source sends nothing: commands come back `Unknown` with the source's own reason, a
check-in is refused as busy, and there are no live sessions to warn about. One base class so
the app's `Source` protocol is met the same way by each of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from t3tui.client.outcome import CommandOutcome, Unknown
from t3tui.client.session import StreamUpdate
from t3tui.client.settle_guard import SharedSession
from t3tui.model import CheckInVerdict
from t3tui.tui.sources.source import Clock

T = TypeVar("T")


class ReadOnlySource:
    """Listeners and refusals; a subclass sets `refusal` (why nothing is sent) and fills
    `_listeners` as it applies what it reads."""

    refusal = "read-only: nothing was sent"

    def __init__(self) -> None:
        self._listeners: list[Callable[[StreamUpdate], None]] = []

    def _notify(self, update: StreamUpdate) -> None:
        for listener in list(self._listeners):
            listener(update)

    def on_update(self, callback: Callable[[StreamUpdate], None]) -> Callable[[], None]:
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    def open_thread(self, thread_id: str) -> bool:
        return False

    def close_thread(self, thread_id: str) -> None:
        return None

    async def dispatch(self, command: Any, timeout: float) -> CommandOutcome:
        return Unknown(self.refusal)

    async def wait_until(self, predicate: Callable[[], T | None], timeout: float) -> T | None:
        return predicate() or None

    async def checkin(
        self, thread_id: str, *, text: str | None, expect: str | None,
        timeout_s: float | None, clock: Clock, queue_if_busy: bool = True,
    ) -> CheckInVerdict:
        return CheckInVerdict("busy", thread_id, self.refusal)

    async def settle_risks(
        self, thread_id: str, descendants: Iterable[str]
    ) -> list[SharedSession]:
        return []

    async def live_sessions(self, thread_id: str) -> list[str]:
        return []
