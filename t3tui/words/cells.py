"""The status table's cells as words: a thread's title, and what its state word does not say.

Plain strings; `headless/render` gives them their colours. Ids inside a state reason are
named as everywhere else (`names.humanize`), unless the caller asks for the raw text.
"""

from __future__ import annotations

from t3tui.model import ThreadRow
from t3tui.model.labels import FINDING_WORDS, one_line, reason_detail, short_id
from t3tui.words.names import Threads, humanize

# Overlays that repeat a finding, which the detail shows as `⚑ <kind>` instead.
FINDING_OVERLAYS = frozenset({"stuck?", "serialized", "phantom", "orphaned-delivery", "runaway",
                              "duplicate"})


def title_cell(row: ThreadRow | None, fallback: str) -> str:
    """The thread's title on one line, or its short id when it has none."""
    return one_line(row.title) if row is not None and row.title else short_id(fallback)


def detail_cell(row: ThreadRow, names: Threads | None = None) -> str:
    """`1 child still running · archived`: the state reason's detail, then overlays; ids in
    the reason by name when `names` is given (the raw reason otherwise)."""
    reason = reason_detail(row.state, row.state_reason)
    if names is not None:
        reason = humanize(reason, names, row.id)
    parts = [one_line(reason)]
    parts += [o for o in row.overlays if o != row.state and o not in FINDING_OVERLAYS]
    return " · ".join(p for p in parts if p)


def findings_cell(row: ThreadRow) -> str:
    """`⚑ serialized, stuck` for a row with findings (kinds sorted), else empty."""
    kinds = sorted({FINDING_WORDS.get(f.kind, f.kind) for f in row.findings})
    return "⚑ " + ", ".join(kinds) if kinds else ""
