"""Transitions between two views, for `watch` and notifications."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from t3tui.model.findings import Finding
from t3tui.model.rows import SupervisorView, ThreadRow


@dataclass(frozen=True)
class Change:
    """A thread that appeared, a state transition, or a finding that appeared/cleared."""

    kind: str  # "appeared" | "state" | "finding" | "finding-cleared"
    thread_id: str
    title: str
    old_state: str | None
    new_state: str | None
    reason: str
    at: datetime
    finding: Finding | None = None


def changes(prev: SupervisorView | None, cur: SupervisorView) -> list[Change]:
    """State transitions and findings that appeared or cleared between two views.

    A first view produces nothing (it is history, not a transition). A thread absent from `prev`
    is reported once as "appeared" (a newly delegated child, say) with the findings it already
    has; notifications act on "state" changes only, so first sight never alerts.
    """
    if prev is None:
        return []
    out: list[Change] = []
    for row in cur.rows:
        out.extend(row_changes(prev.row(row.id), row, cur.now))
    return out


def row_changes(before: ThreadRow | None, row: ThreadRow, at: datetime) -> list[Change]:
    """What changed in one thread's row (`before` None: it was not shown)."""
    if before is None:
        return [Change("appeared", row.id, row.title, None, row.state, row.state_reason, at),
                *(Change("finding", row.id, row.title, None, row.state, finding.reason, at,
                         finding) for finding in row.findings)]
    out: list[Change] = []
    if before.state != row.state:
        out.append(Change("state", row.id, row.title, before.state, row.state,
                          row.state_reason, at))
    if before.findings == row.findings:
        return out
    old = {f.key for f in before.findings}
    new = {f.key for f in row.findings}
    for finding in row.findings:
        if finding.key not in old:
            out.append(Change("finding", row.id, row.title, before.state, row.state,
                              finding.reason, at, finding))
    for finding in before.findings:
        if finding.key not in new:
            out.append(Change("finding-cleared", row.id, row.title, before.state, row.state,
                              f"cleared: {finding.reason}", at, finding))
    return out


class ChangeTracker:
    """The rows a watcher last compared, kept current from `Supervisor.changed_rows` (the
    path the app's screen takes) instead of a whole view and a diff of every row per batch:
    O(rows changed) per call, not O(threads). Gives what `changes` gives between the views
    (`tests/model/test_watch_changes.py`); within one call, parents before their children."""

    def __init__(self, baseline: SupervisorView) -> None:
        self.rows: dict[str, ThreadRow] = dict(baseline.by_id)

    def update(self, changed: Mapping[str, ThreadRow | None], at: datetime) -> list[Change]:
        out: list[Change] = []
        gone = [t for t, row in changed.items() if row is None]
        for thread_id in gone:
            self.rows.pop(thread_id, None)  # not shown: like a row missing from the view
        fresh = sorted((r for r in changed.values() if r is not None),
                       key=lambda r: (r.depth, r.id))
        for row in fresh:
            out.extend(row_changes(self.rows.get(row.id), row, at))
            self.rows[row.id] = row
        return out
