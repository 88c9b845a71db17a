"""When a derivation's answer can next change by time alone: the clock reads it noted.

The model re-derives a row only when one of its facts changed or when time reaches a moment
the last derivation compared `now` against (a dwell ends, a wait's budget runs out). Every rule
reads the clock through `held`/`reached` (`detectors/common.py`) or calls `note(at)` for a
moment it compares against; a comparison of `now` made any other way is invisible here, and the
row would not be re-derived when it flips (`tests/model/test_incremental.py` replays recorded
streams through a cached and an uncached supervisor to catch that).

Collectors nest: what an inner derivation noted (a child's state, read by its parent's row)
also bounds the outer one.
"""

from __future__ import annotations

from datetime import datetime

_stack: list[list[datetime | None]] = []


def note(at: datetime | None) -> None:
    """The answer being derived changes when time reaches `at` (None: never)."""
    if at is not None and _stack:
        box = _stack[-1]
        if box[0] is None or at < box[0]:
            box[0] = at


class Collect:
    """`with Collect() as c: ...` then `c.earliest`: the soonest moment noted inside."""

    __slots__ = ("_box", "earliest")

    def __init__(self) -> None:
        self._box: list[datetime | None] = [None]
        self.earliest: datetime | None = None

    def __enter__(self) -> Collect:
        _stack.append(self._box)
        return self

    def __exit__(self, *exc: object) -> None:
        _stack.pop()
        self.earliest = self._box[0]
        note(self.earliest)  # an enclosing derivation depends on this one


__all__ = ["Collect", "note"]
