"""Transitions between two views, for `watch` and notifications."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from t3tui.model.findings import Finding
from t3tui.model.rows import SupervisorView


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
        before = prev.row(row.id)
        if before is None:
            out.append(Change("appeared", row.id, row.title, None, row.state,
                              row.state_reason, cur.now))
            out.extend(Change("finding", row.id, row.title, None, row.state, finding.reason,
                              cur.now, finding) for finding in row.findings)
            continue
        if before.state != row.state:
            out.append(Change("state", row.id, row.title, before.state, row.state,
                              row.state_reason, cur.now))
        old = {f.key for f in before.findings}
        new = {f.key for f in row.findings}
        for finding in row.findings:
            if finding.key not in old:
                out.append(Change("finding", row.id, row.title, before.state, row.state,
                                  finding.reason, cur.now, finding))
        for finding in before.findings:
            if finding.key not in new:
                out.append(Change("finding-cleared", row.id, row.title, before.state, row.state,
                                  f"cleared: {finding.reason}", cur.now, finding))
    return out
