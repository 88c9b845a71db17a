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
    "clock",
    "counts_text",
    "display_text",
    "duration",
    "finding_marker",
    "glyph",
    "is_problem",
    "provider_text",
    "screen_safe",
    "stamp",
    "word",
]
