"""Finding occurrences: when t3tui first saw each finding, and whether it is history.

An occurrence is a finding (thread, rule) from the view in which it appeared to the view in
which it cleared; when it comes back it is a new occurrence. It is **history** when it began
before t3tui was watching: its own onset (`since`) is before the moment the streams were first
synchronized, or, without an onset, it was there in the first view. History is reported, never
acted on (T3's settlement sweep stamped 338 threads of up to 179 days in 13 s).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from t3tui.model.findings import Finding


@dataclass(frozen=True)
class Seen:
    """A finding now, with the moment t3tui first saw its occurrence."""

    finding: Finding
    first_seen: datetime
    history: bool  # it began before t3tui was watching
    synchronized: bool = True  # its thread's stream is synchronized now

    @property
    def thread_id(self) -> str:
        return self.finding.thread_id


class Occurrences:
    """Feed it every finding of each view (`update`); it keeps first-seen moments.

    `watching_since` is the moment the streams were first synchronized (None until then: every
    finding seen before it is history)."""

    def __init__(self) -> None:
        self.watching_since: datetime | None = None
        self._first: dict[tuple[str, str], tuple[datetime, bool]] = {}

    def start(self, at: datetime) -> None:
        """The streams are synchronized for the first time (later reconnects do not move it)."""
        if self.watching_since is None:
            self.watching_since = at

    def _is_history(self, finding: Finding) -> bool:
        start = self.watching_since
        if start is None:
            return True
        if finding.since is not None:
            return finding.since < start
        return False

    def update(self, findings: Iterable[Finding], now: datetime,
               synchronized: Callable[[str], bool] = lambda _t: True) -> list[Seen]:
        """The findings of the view at `now` (all of them: one missing has cleared)."""
        current: dict[tuple[str, str], Finding] = {(f.thread_id, f.rule): f for f in findings}
        for key in [k for k in self._first if k not in current]:
            del self._first[key]  # cleared: a return is a new occurrence
        seen = []
        for key, finding in current.items():
            if key not in self._first:
                self._first[key] = (now, self._is_history(finding))
            first, history = self._first[key]
            seen.append(Seen(finding, first, history, synchronized(finding.thread_id)))
        return seen
