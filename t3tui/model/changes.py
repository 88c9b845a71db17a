"""Transitions between two views, for `watch` and notifications."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from t3tui.model.findings import Finding


@dataclass(frozen=True)
class Change:
    """A state transition or a finding that appeared/cleared on a thread seen before."""

    kind: str  # "state" | "finding" | "finding-cleared"
    thread_id: str
    title: str
    old_state: str | None
    new_state: str | None
    reason: str
    at: datetime
    finding: Finding | None = None
