"""A front end that was not running (a laptop's lid closed, SIGSTOP): its view is as old as
the pause, and its socket may be dead without it knowing yet. Found by stopping `watch --act`
for a minute while a stop was landing: on resume it started a forced stop at once, on the
view from before the pause (the stop had landed meanwhile).

`Resume.look(t)` on every look (a monotonic clock): after a gap longer than `gap_s` since the
last look, the facts are not fresh for `fresh_s` (two ping rounds: a dead socket is found
and the connection goes stale, or a live one has delivered what it missed).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Final

from t3tui.client.waiting import PAUSE_S

# a front end looks every second or so: the client's own rule for what gap is a pause
GAP_S: Final = PAUSE_S
FRESH_S: Final = 10.0  # the client pings every 5 s: two rounds find a dead socket


class Resume:
    def __init__(self, gap_s: float = GAP_S, fresh_s: float = FRESH_S) -> None:
        self.gap_s, self.fresh_s = gap_s, fresh_s
        self._last: float | None = None
        self._fresh_at: float | None = None
        self.paused_s = 0.0  # how long the last pause was

    def look(self, t: float) -> bool:
        """A look at monotonic time `t`: True when the facts may be acted on."""
        if self._last is not None and t - self._last > self.gap_s:
            self._fresh_at, self.paused_s = t + self.fresh_s, t - self._last
        self._last = t
        return self._fresh_at is None or t >= self._fresh_at


class OwnPauseClock:
    """The time a front end derives its rows at: `wall()`, less its own last pause until the
    facts are fresh again (`fresh_s` after it, and the facts `current()` again).

    A dwell is evidence of a thread's silence only up to the last moment the stream could
    have delivered. While this process was stopped nothing could be read, and just after it
    the stream is still catching up: a dwell counted across the pause (a row "stuck" or
    "silent" for a second after a suspend) would be the process's own pause, not the thread's.
    So after a pause the clock stands where it stood when the pause began and runs on from
    there, until `fresh_s` have passed (the stream has delivered what happened meanwhile, or
    the socket was found dead) and `current()` says the streams are synchronized again: a
    socket the pause outlived is reconnected and resumed first, however long that takes (the
    rows meanwhile are from before the pause). Then it is the wall clock again. Never earlier
    than a time it gave. Asked every second or so (the app's tick), a gap over `gap_s` between
    two asks is a pause.
    """

    def __init__(self, wall: Callable[[], datetime],
                 monotonic: Callable[[], float] = time.monotonic,
                 gap_s: float = GAP_S, fresh_s: float = FRESH_S,
                 current: Callable[[], bool] = lambda: True) -> None:
        self.wall, self.monotonic, self.current = wall, monotonic, current
        self.gap_s, self.fresh_s = gap_s, fresh_s
        self._last: float | None = None
        self._until = float("-inf")  # monotonic time the hold may end, the facts current
        self._shift = 0.0  # seconds of pause left out
        self._given: datetime | None = None
        self.holding = False  # True from a pause until the facts are fresh again

    def __call__(self) -> datetime:
        t, wall = self.monotonic(), self.wall()
        last, self._last = self._last, t
        if last is not None and t - last > self.gap_s:  # this process was paused
            self._shift = (self._shift if self.holding else 0.0) + (t - last)
            self._until, self.holding = t + self.fresh_s, True
        if self.holding and t >= self._until and self.current():
            self.holding = False
        if self.holding:
            wall = wall - timedelta(seconds=self._shift)
            if self._given is not None and wall < self._given:
                wall = self._given
        self._given = wall
        return wall
