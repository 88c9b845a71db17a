"""How a thread looks on screen: glyphs, state words, durations, tree labels, counts.

Pure functions over model rows that return `rich.text.Text`. Titles, reasons and messages come
from agents, so they are always appended as plain text, never parsed as markup. Styles are
named `state-*` component classes resolved by the tree (see `styles.tcss`), so colours come
from the theme. Glyphs, state words, ages and counts come from `t3tui.model.labels`, shared
with the headless CLI.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from rich.style import Style
from rich.text import Text

from t3tui.model import ThreadRow
from t3tui.model.labels import (  # re-exported: the app's modules import them from here
    COUNT_ORDER,
    FINDING_WORDS,
    NATIVE_GLYPH,
    QUIET_STATES,
    STATE_LOOK,
    age,
    clock,
    counts_text,
    duration,
    finding_marker,
    glyph,
    provider_text,
    word,
)
from t3tui.model.wiretext import display_rich, display_text


def screen_safe(text: Text) -> Text:
    """`text` with every control made visible, bidi overrides neutralised and lone surrogates
    replaced (styles kept), for anything that reaches the screen: `wiretext.display_rich`, the
    one sanitiser shared with the CLI. The same object when there is nothing to change."""
    return display_rich(text)


PROBLEM_OVERLAYS = frozenset({"stuck?", "serialized", "phantom", "orphaned-delivery", "runaway",
                              "duplicate"})


def stamp(at: datetime | None) -> str:
    """`2026-10-04 12:03:04 UTC`."""
    if at is None:
        return "—"
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


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
        for state in (*COUNT_ORDER, *QUIET_STATES)
        if (count := row.child_counts.get(state, 0))
    ]
    head = f"{n} {'child' if n == 1 else 'children'}"
    return f"{head}: {' '.join(parts)}" if parts else head


def is_problem(row: ThreadRow) -> bool:
    """Rows shown by the "problems only" filter: stuck, needs input, serialized, phantom."""
    if row.state in ("stuck", "needs-input", "orphaned"):
        return True
    return bool(PROBLEM_OVERLAYS.intersection(row.overlays))


__all__ = [
    "COUNT_ORDER",
    "FINDING_WORDS",
    "NATIVE_GLYPH",
    "PROBLEM_OVERLAYS",
    "STATE_LOOK",
    "RowStyles",
    "age",
    "child_summary",
    "clock",
    "counts_text",
    "display_text",
    "duration",
    "finding_marker",
    "glyph",
    "is_problem",
    "provider_text",
    "row_label",
    "screen_safe",
    "stamp",
    "word",
]
