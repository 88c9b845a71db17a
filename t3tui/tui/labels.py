"""How a thread looks on screen: glyphs, state words, durations, tree labels, counts.

Pure functions over model rows that return `rich.text.Text`. Titles, reasons and messages come
from agents, so they are always appended as plain text, never parsed as markup. Styles are
named `state-*` component classes resolved by the tree (see `styles.tcss`), so colours come
from the theme, and every state also has its own glyph and word for terminals without colour.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from rich.style import Style
from rich.text import Text

from t3tui.model import ThreadRow

# state -> (glyph, word); each glyph is unique so states read without colour.
STATE_LOOK: dict[str, tuple[str, str]] = {
    "needs-input": ("◆", "needs input"),
    "stuck": ("✖", "stuck?"),
    "creating": ("◌", "creating"),
    "queued": ("◇", "queued"),
    "running": ("▶", "running"),
    "draining": ("◑", "draining"),
    "waiting": ("◎", "waiting"),
    "done": ("✔", "done"),
    "settled": ("■", "settled"),
    "idle": ("○", "idle"),
}
# Order of the header counts: what needs a human first.
COUNT_ORDER = (
    "needs-input", "stuck", "running", "waiting", "queued", "creating", "draining", "done",
)
PROBLEM_OVERLAYS = frozenset({"stuck?", "serialized", "phantom", "orphaned-delivery"})
FINDING_WORDS = {
    "stuck": "stuck",
    "serialized_wait": "serialized",
    "phantom_child": "phantom",
    "undelivered_result": "undelivered",
    "orphaned_delivery": "orphaned",
}
NATIVE_GLYPH = "⬡"


def glyph(state: str) -> str:
    return STATE_LOOK.get(state, ("·", state))[0]


def word(state: str) -> str:
    return STATE_LOOK.get(state, ("·", state))[1]


def duration(seconds: float) -> str:
    """`7s`, `2m05s`, `1h04m`, `2d04h`: short, and it changes every second under an hour."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 48 * 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def age(since: datetime | None, now: datetime) -> str:
    return "" if since is None else duration((now - since).total_seconds())


def clock(at: datetime | None, *, seconds: bool = True) -> str:
    """`12:03:04` in UTC (the seed reports' convention); `—` when unknown."""
    if at is None:
        return "—"
    return at.astimezone(UTC).strftime("%H:%M:%S" if seconds else "%H:%M")


def stamp(at: datetime | None) -> str:
    """`2026-10-04 12:03:04 UTC`."""
    if at is None:
        return "—"
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def provider_text(row: ThreadRow) -> str:
    parts = [p for p in (row.provider, row.model) if p]
    return "/".join(parts)


def finding_marker(row: ThreadRow) -> str:
    """`⚑ stuck, serialized` when the row has findings, else empty."""
    kinds = []
    for finding in row.findings:
        text = FINDING_WORDS.get(finding.kind, finding.kind)
        if text not in kinds:
            kinds.append(text)
    return f"⚑ {', '.join(kinds)}" if kinds else ""


@dataclass(frozen=True)
class RowStyles:
    """Styles for the parts of a row, resolved from the tree's component classes."""

    states: dict[str, Style]
    title: Style = field(default_factory=lambda: Style(bold=True))
    dim: Style = field(default_factory=lambda: Style(dim=True))
    finding: Style = field(default_factory=lambda: Style(bold=True))


def row_label(row: ThreadRow, now: datetime, styles: RowStyles, *, stale: bool = False,
              compact: bool = False) -> Text:
    """`▶ Child A  running 2m05s  codex/gpt-5  ⚑ stuck` as one line of plain text;
    `compact` (a narrow tree) leaves out the provider and the child summary."""
    state_style = styles.states.get(row.state, Style())
    label = Text(no_wrap=True, overflow="ellipsis")
    label.append(glyph(row.state) + " ", style=state_style)
    if row.origin == "provider_native":
        label.append(NATIVE_GLYPH + " ", style=styles.dim)
    label.append(row.title or row.id, style=styles.title)
    label.append("  ")
    label.append(word(row.state), style=state_style)
    since = age(row.state_since, now)
    if since:
        label.append(" " + since, style=state_style)
    if row.settled and row.state != "settled":
        label.append(" · settled", style=styles.dim)
    if row.children and not compact:
        label.append("  " + child_summary(row), style=styles.dim)
    provider = provider_text(row)
    if provider and not compact:
        label.append("  " + provider, style=styles.dim)
    marker = finding_marker(row)
    if marker:
        label.append("  " + marker, style=styles.finding)
    if stale:
        label.stylize(styles.dim)
    return label


def child_summary(row: ThreadRow) -> str:
    """`3 children: 2▶ 1◆` from the direct children's states."""
    n = len(row.children)
    parts = [
        f"{count}{glyph(state)}"
        for state in (*COUNT_ORDER, "settled", "idle")
        if (count := row.child_counts.get(state, 0))
    ]
    head = f"{n} {'child' if n == 1 else 'children'}"
    return f"{head}: {' '.join(parts)}" if parts else head


def counts_text(counts: dict[str, int], *, compact: bool = False) -> str:
    """`3 running · 1 waiting · 1 stuck`, attention first; `nothing active` when all quiet.
    `compact` (narrow terminals): `3▶ 1◎ 1✖`, glyphs that read without colour."""
    if compact:
        parts = [f"{counts[s]}{glyph(s)}" for s in COUNT_ORDER if counts.get(s)]
        return " ".join(parts) if parts else "nothing active"
    parts = [f"{counts[s]} {word(s)}" for s in COUNT_ORDER if counts.get(s)]
    return " · ".join(parts) if parts else "nothing active"


def is_problem(row: ThreadRow) -> bool:
    """Rows shown by the "problems only" filter: stuck, needs input, serialized, phantom."""
    if row.state in ("stuck", "needs-input"):
        return True
    return bool(PROBLEM_OVERLAYS.intersection(row.overlays))
