"""Which reconnect attempts `watch` says: a server down all night is not a line every 8 s.

The client retries forever (0, 1, 2, 4, 8 s, then every 8 s: `client.backoff`). `watch` says
the first attempts of an outage, an attempt whose error changed (refused, then timing out),
and then one line every `REPEAT_S` with how long it has been down; every other state (stale,
live, failed) is said as it comes and ends the outage.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from t3tui.client.state import ConnectionState, Reconnecting
from t3tui.model.labels import clock
from t3tui.policy.spec import format_duration

FIRST: Final = 5  # the attempts of the backoff's ramp, each said
REPEAT_S: Final = 300.0  # then the same error once this often


class ReconnectLines:
    """Feed it each connection state (`say`): True when it is worth a line; `detail` is what
    the line says about a reconnect attempt."""

    def __init__(self) -> None:
        self._since: datetime | None = None  # the outage began (first attempt)
        self._said: tuple[str, datetime] | None = None  # the last error said, and when

    def say(self, state: ConnectionState, at: datetime) -> bool:
        if not isinstance(state, Reconnecting):
            self._since = self._said = None
            return True
        if self._since is None:
            self._since = at
        said = self._said
        if (state.attempt <= FIRST or said is None or said[0] != state.last_error
                or (at - said[1]).total_seconds() >= REPEAT_S):
            self._said = (state.last_error, at)
            return True
        return False

    def detail(self, state: Reconnecting, at: datetime) -> str:
        text = f"attempt {state.attempt}: {state.last_error}"
        if state.attempt > FIRST and self._since is not None:
            down = format_duration((at - self._since).total_seconds())
            text += (f"; down since {clock(self._since)} ({down}), still trying every few "
                     f"seconds, said again every {format_duration(REPEAT_S)}")
        return text
