"""A front end that was not running (a laptop's lid closed, SIGSTOP): its view is as old as
the pause, and its socket may be dead without it knowing yet. Found by stopping `watch --act`
for a minute while a stop was landing: on resume it started a forced stop at once, on the
view from before the pause (the stop had landed meanwhile).

`Resume.look(t)` on every look (a monotonic clock): after a gap longer than `gap_s` since the
last look, the facts are not fresh for `fresh_s` (two ping rounds: a dead socket is found
and the connection goes stale, or a live one has delivered what it missed).
"""

from __future__ import annotations

from typing import Final

GAP_S: Final = 5.0  # a front end looks every second or so: five without a look is a pause
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
