"""Which reconnect attempts `watch` says: a server down all night is not a line every 8 s.

The client retries forever (0, 1, 2, 4, 8 s, then every 8 s: `client.backoff`). `watch` says
the first attempts of an outage, an attempt whose error changed (refused, then timing out),
and then one line every `REPEAT_S` with how long it has been down; live and failed are said
as they come and end the outage, live after one saying "reconnected after N". Stale (connected
again, catching up) is said as it comes with `stale_dwell=None` (the ndjson: machines read
every state); else only once it has lasted `stale_dwell` (`due`): after every quick reconnect,
"stale" then "live" in the same second was a line that said nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from t3tui.client.state import ConnectionState, Live, Reconnecting, Stale
from t3tui.model.labels import clock
from t3tui.policy.spec import format_duration

FIRST: Final = 5  # the attempts of the backoff's ramp, each said
REPEAT_S: Final = 300.0  # then the same error once this often
STALE_DWELL_S: Final = 2.0  # a catch-up shorter than this is not a line of its own


class ReconnectLines:
    """Feed it each connection state (`say`): True when it is worth a line; `detail` is what
    the line says about a reconnect attempt."""

    def __init__(self, stale_dwell: float | None = None) -> None:
        self.stale_dwell = stale_dwell
        self._since: datetime | None = None  # the outage began (first attempt)
        self._said: tuple[str, datetime] | None = None  # the last error said, and when
        self._down: datetime | None = None  # not live since (a reconnect or a catch-up)
        self.stale_since: datetime | None = None  # catching up since, not said yet
        self.back: str = ""  # what the last live line says: "reconnected after 3s"

    def say(self, state: ConnectionState, at: datetime) -> bool:
        if isinstance(state, Reconnecting | Stale) and self._down is None:
            self._down = at
        self.stale_since = None
        if isinstance(state, Stale) and self.stale_dwell is not None:
            self._since = self._said = None
            self.stale_since = at
            return False
        if not isinstance(state, Reconnecting):
            self._since = self._said = None
            self.back = ""
            if isinstance(state, Live) and self._down is not None:
                down = (at - self._down).total_seconds()
                self.back = "reconnected" + (f" after {format_duration(down)}"
                                             if down >= 1 else "")
            if not isinstance(state, Stale):
                self._down = None
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

    def due(self, at: datetime) -> datetime | None:
        """A catch-up that has lasted `stale_dwell` by `at`: when it began, once."""
        since = self.stale_since
        if since is None or self.stale_dwell is None or \
                (at - since).total_seconds() < self.stale_dwell:
            return None
        self.stale_since = None
        return since
