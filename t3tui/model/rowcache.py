"""Derived rows kept between calls, and a heap of the moments they expire by time alone.

A row is re-derived when one of its own inputs changed (the index marks it dirty) or when the
clock reaches a moment its last derivation compared against (`deadlines.note`), never on a
scan: expiring moments sit in a heap. A parent depends on its children only through their
summary (state, busy, parent, order); when a re-derived child's summary changes, its parent is
re-derived too (`Supervisor._settle`).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from t3tui.model.rows import ThreadRow

# Rows with findings (or a check-in) say how long a condition has held: their text reads the
# clock. They are exact only at the moment they were derived, so `row`/`view` derive them again
# for any other `now`; for screens (`changed_rows`) they come round again once a second.
VOLATILE_S = timedelta(seconds=1)


@dataclass(slots=True)
class Entry:
    row: ThreadRow
    at: datetime                 # derived at this `now`
    until: datetime | None       # the first moment its answer may differ by time alone
    volatile: bool               # findings or a check-in: exact only at `at`
    busy: bool                   # live work in its subtree (what the parent reads)
    order: Any                   # its place among its siblings (the sort key's time)
    # its context's parts a patch may reuse (`Assembler.kept_parts`; None: build them again)
    parts: tuple[Any, ...] | None = None

    def holds(self, now: datetime) -> bool:
        """State, busy and order are still right at `now`."""
        return self.at <= now and (self.until is None or now < self.until)

    def serves(self, now: datetime, depth: int) -> bool:
        """The row itself is exactly what a derivation at `now` would give."""
        return self.holds(now) and (not self.volatile or now == self.at) and self.row.depth == depth

    @property
    def summary(self) -> tuple[Any, ...]:
        """What the parent's row reads of this one."""
        return self.row.state, self.row.parent_id, self.busy, self.order


def summary(entry: Entry | None) -> tuple[Any, ...] | None:
    return entry.summary if entry is not None else None


def same_row(a: Entry | None, b: Entry | None) -> bool:
    """The two rows are equal, child counts included: their fields' dicts compared (a row
    holds its fields and nothing else, tests/model/test_facts_built.py), not the frozen
    dataclass's `__eq__`, which builds a tuple of every field of both (every row of a frame)."""
    if a is None or b is None:
        return a is b
    return a.row.__dict__ == b.row.__dict__


class RowCache:
    """Entries by thread id, plus a heap of (until, id) for the ones time will expire."""

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self._heap: list[tuple[datetime, str]] = []

    def peek(self, thread_id: str, now: datetime) -> Entry | None:
        entry = self.entries.get(thread_id)
        return entry if entry is not None and entry.holds(now) else None

    def store(self, thread_id: str, entry: Entry) -> None:
        self.entries[thread_id] = entry
        if entry.until is not None:
            heapq.heappush(self._heap, (entry.until, thread_id))
            if len(self._heap) > 2 * len(self.entries) + 64:
                self._compact()

    def drop(self, thread_id: str) -> Entry | None:
        return self.entries.pop(thread_id, None)

    def due_by(self, now: datetime) -> bool:
        """Some entry may have expired by `now` (a stale heap item counts: `due` drops it)."""
        return bool(self._heap) and self._heap[0][0] <= now

    def due(self, now: datetime) -> set[str]:
        """Threads whose entry expired by `now` (stale heap items are skipped)."""
        out = set()
        heap = self._heap
        while heap and heap[0][0] <= now:
            until, thread_id = heapq.heappop(heap)
            entry = self.entries.get(thread_id)
            if entry is not None and entry.until == until:
                out.add(thread_id)
        return out

    def _compact(self) -> None:
        # entries re-derived before their moment leave heap items behind; drop them so the
        # heap stays proportional to the rows, however many events a thread sees
        self._heap = [(e.until, t) for t, e in self.entries.items() if e.until is not None]
        heapq.heapify(self._heap)
