"""Keeping the picture current without deriving every row per stream item.

`Supervisor.view(now)` derives every row and runs every detector: O(threads), ~150 ms at 5,000.
A stream item changes a handful of rows, and the model says which and derives them
(`Supervisor.changed_rows`, which also covers what time alone changes). So the app swaps them
into its last view (`patch_view`, cheap), and builds a full view only when the tree changed
shape or the connection state changes, throttled (`Throttle`). No Textual here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from t3tui.model import Change, SupervisorView, ThreadRow, changes
from t3tui.model.findings import rank_findings


@dataclass(frozen=True)
class Patch:
    """`view` with fresh rows swapped in. `changed`: rows that differ from the ones they
    replaced. `reshaped`: a row appeared, went away or moved; only a full view knows where
    it goes, so until then it is left as it was."""

    view: SupervisorView
    changed: tuple[ThreadRow, ...]
    reshaped: bool


def _shape(row: ThreadRow) -> tuple[object, ...]:
    return row.parent_id, row.depth, row.children


def patch_view(view: SupervisorView, fresh: Mapping[str, ThreadRow | None],
               now: datetime, index: Mapping[str, int] | None = None) -> Patch:
    """Swap `fresh` rows (None: not shown) into `view`. `index`: thread id -> its place in
    `view.rows` (`row_index`; a patch keeps every place), so the rows are swapped in place
    in a copy of the list, not looked up one by one (O(threads) in Python per frame).
    `synchronized` holds only while no patched row is stale."""
    changed: list[ThreadRow] = []
    reshaped = False
    for thread_id, row in fresh.items():
        old = view.by_id.get(thread_id)
        if row is None or old is None:
            reshaped = reshaped or row is not old
        elif _shape(row) != _shape(old):
            reshaped = True
        elif row != old or row.child_counts != old.child_counts:
            changed.append(row)
    synchronized = view.synchronized and not any(
        "stale" in r.overlays for r in fresh.values() if r is not None)
    if not changed:
        view = view if synchronized == view.synchronized else replace(view, synchronized=False)
        return Patch(view, (), reshaped)
    by_id = dict(view.by_id)
    counts = dict(view.counts)
    refind = False
    for row in changed:
        old = by_id[row.id]
        by_id[row.id] = row
        counts[old.state] = counts.get(old.state, 0) - 1
        counts[row.state] = counts.get(row.state, 0) + 1
        refind = refind or old.findings != row.findings
    if index is None:
        rows = tuple(by_id[r.id] for r in view.rows)
    else:
        listed = list(view.rows)
        for row in changed:
            listed[index[row.id]] = row
        rows = tuple(listed)
    findings = tuple(rank_findings([f for r in rows for f in r.findings])) if refind \
        else view.findings
    patched = SupervisorView(now=now, rows=rows, findings=findings, counts=counts,
                             synchronized=synchronized, by_id=by_id)
    return Patch(patched, tuple(changed), reshaped)


def row_index(view: SupervisorView) -> dict[str, int]:
    """Thread id -> its place in `view.rows`: valid for every patch of `view` (`patch_view`
    never moves a row), until the next full view."""
    return {r.id: i for i, r in enumerate(view.rows)}


def changes_among(prev: SupervisorView, cur: SupervisorView,
                  ids: Iterable[str]) -> list[Change]:
    """`changes(prev, cur)` restricted to `ids`: O(len(ids)), not O(threads)."""
    def only(view: SupervisorView, rows: list[ThreadRow]) -> SupervisorView:
        return replace(view, rows=tuple(rows), by_id={r.id: r for r in rows})

    before = [r for i in ids if (r := prev.row(i)) is not None]
    after = [r for i in ids if (r := cur.row(i)) is not None]
    return changes(only(prev, before), only(cur, after))


class Throttle:
    """When the next full view may start: its cost (smoothed) times `gap`, after the last one
    ended, so full views take at most 1/(1+gap) of the event loop, whatever the tree's size."""

    def __init__(self, gap: float = 4.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.gap = gap
        self.clock = clock
        self.cost = 0.0
        self.ended = float("-inf")

    def wait(self) -> float:
        """Seconds until a full view may start (0: now)."""
        return max(0.0, self.ended + self.cost * self.gap - self.clock())

    def record(self, started: float, ended: float) -> None:
        cost = max(0.0, ended - started)
        self.cost = cost if self.ended == float("-inf") else (self.cost + cost) / 2
        self.ended = ended
