"""When `watch --act --ndjson` prints its heartbeat (a `"kind": "tick"` record).

The policies evaluate every second, and at once when a finding appears or clears. A record
after each (it was, at most once a second) is 86,400 journal lines a day under the README's
systemd unit; so a tick comes every `--heartbeat S` (default a minute: a watch that stops
ticking is stuck), and at once when the finding occurrences the policies judge change (one
appears, is taken up by a run, clears), never two within `FLOOR_S`: a change inside it is
said at the first evaluation after.
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import datetime
from typing import Final

HEARTBEAT_S: Final = 60.0
FLOOR_S: Final = 1.0  # findings can come and go every frame: not a tick for each


class Heartbeat:
    def __init__(self, every: float = HEARTBEAT_S, floor: float = FLOOR_S) -> None:
        self.every, self.floor = every, floor
        self._at: datetime | None = None
        self._judged: frozenset[Hashable] = frozenset()

    def due(self, at: datetime, judged: frozenset[Hashable]) -> bool:
        """An evaluation at `at` that judged `judged`: True when it is worth a tick (the first,
        one `every` after the last, or the judged set changed since the last tick)."""
        if self._at is not None:
            since = (at - self._at).total_seconds()
            if since < self.every and (judged == self._judged or since < self.floor):
                return False
        self._at, self._judged = at, judged
        return True
