"""What an action needs from whoever holds the connection: the `Port`.

The app's sources (`LiveSource`, the multi-environment `MultiSource`) satisfy it as they are;
a headless command wraps its `Session` and `Supervisor` in a `SessionPort`. Ids are the
port's own: qualified `NAME:ID` behind a multi-environment port, the server's otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, Protocol, TypeVar

from t3tui.client.checkin import run_checkin
from t3tui.client.outcome import CommandOutcome
from t3tui.client.session import Session
from t3tui.client.settle_guard import SharedSession, live_sessions, settle_risks
from t3tui.model import CheckInVerdict, Supervisor, SupervisorView, ThreadRow

T = TypeVar("T")
Clock = Callable[[], datetime]
Report = Callable[[str, str], None]  # report(phase, text): pending / ok / failed / unknown
IdFactory = Callable[[], str]


def no_report(_phase: str, _text: str) -> None:
    """For a caller that only wants the outcome (a headless command, a policy)."""


class Rows(Protocol):
    """The part of the model an action reads and writes (a `Supervisor`, or `Combined`)."""

    def row(self, thread_id: str, now: datetime) -> ThreadRow | None: ...

    def view(self, now: datetime) -> SupervisorView: ...

    def has_message(self, thread_id: str, message_id: str) -> bool: ...

    def thread_synchronized(self, thread_id: str) -> bool: ...

    def forwards(self, thread_id: str) -> dict[str, datetime | None]: ...

    def woken_runs(self, thread_id: str) -> dict[str, frozenset[str]]: ...

    def record_interrupt(self, thread_id: str, run_id: str, at: datetime) -> None: ...


class Port(Protocol):
    """What every action is written against (see the module docstring)."""

    @property
    def supervisor(self) -> Rows: ...

    async def dispatch(self, command: Any, timeout: float) -> CommandOutcome:
        """Send a command and keep resending it (same commandId) while its outcome is
        unknown, up to `timeout` s. May raise `ClientError` (the outcome is then unknown)."""

    async def wait_until(self, predicate: Callable[[], T | None], timeout: float) -> T | None:
        """`predicate`'s first truthy value, re-checked after every applied batch and on a
        tick; None when `timeout` passes first."""

    def open_thread(self, thread_id: str) -> bool:
        """Keep the thread's own stream subscribed; False when it already was (do not close)."""

    def close_thread(self, thread_id: str) -> None: ...

    async def checkin(self, thread_id: str, *, text: str | None, expect: str | None,
                      timeout_s: float | None, clock: Clock,
                      queue_if_busy: bool = True) -> CheckInVerdict:
        """Send a check-in and wait for its verdict; `None`s take the configured defaults."""

    async def settle_risks(self, thread_id: str,
                           descendants: Iterable[str]) -> list[SharedSession]: ...

    async def live_sessions(self, thread_id: str) -> list[str]:
        """Ids of the provider sessions attached to the thread now (for a forced stop)."""


class SessionPort:
    """A `Port` over one client `Session` and the `Supervisor` it feeds (the headless side)."""

    def __init__(self, session: Session, supervisor: Supervisor) -> None:
        self.session = session
        self._supervisor = supervisor

    @property
    def supervisor(self) -> Supervisor:
        return self._supervisor

    async def dispatch(self, command: Any, timeout: float) -> CommandOutcome:
        return await self.session.dispatch_until_known(command, timeout)

    async def wait_until(self, predicate: Callable[[], T | None], timeout: float) -> T | None:
        return await self.session.wait_until(predicate, timeout)

    def open_thread(self, thread_id: str) -> bool:
        return self.session.open_thread(thread_id)

    def close_thread(self, thread_id: str) -> None:
        self.session.close_thread(thread_id)

    async def checkin(self, thread_id: str, *, text: str | None, expect: str | None,
                      timeout_s: float | None, clock: Clock,
                      queue_if_busy: bool = True) -> CheckInVerdict:
        return await run_checkin(self.session, thread_id, text=text, expect=expect,
                                 timeout_s=timeout_s, queue_if_busy=queue_if_busy, clock=clock)

    async def settle_risks(self, thread_id: str,
                           descendants: Iterable[str]) -> list[SharedSession]:
        return await settle_risks(self.session, thread_id, descendants)

    async def live_sessions(self, thread_id: str) -> list[str]:
        return await live_sessions(self.session, thread_id)

