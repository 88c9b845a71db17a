"""How states, times and ids read as words: one vocabulary for the app and the headless CLI.

Plain strings only (no Textual, no rich), so both front ends show the same glyph, word, age
and short id for a thread. Each state has its own glyph, so states read without colour.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from t3tui.model.rows import ThreadRow
from t3tui.model.taskids import client_request_id
from t3tui.model.wiretext import display_text

# state -> (glyph, word)
STATE_LOOK: dict[str, tuple[str, str]] = {
    "needs-input": ("◆", "needs input"),
    "stuck": ("✖", "stuck?"),
    "creating": ("◌", "creating"),
    "queued": ("◇", "queued"),
    "running": ("▶", "running"),
    "draining": ("◑", "draining"),
    "orphaned": ("⊘", "orphaned"),
    "waiting": ("◎", "waiting"),
    "done": ("✔", "done"),
    "settled": ("■", "settled"),
    "idle": ("○", "idle"),
}
# Order of counts: what needs a human first; the quiet states last.
COUNT_ORDER = (
    "needs-input", "stuck", "orphaned", "running", "waiting", "queued", "creating", "draining",
    "done",
)
QUIET_STATES = ("settled", "idle")
FINDING_WORDS = {
    "stuck": "stuck",
    "provider_finished_unheard": "unheard",
    "serialized_wait": "serialized",
    "phantom_child": "phantom",
    "undelivered_result": "undelivered",
    "orphaned_delivery": "orphaned",
    "runaway_provider": "runaway",
    "duplicate_child": "duplicate",
}
NATIVE_GLYPH = "⬡"
ELLIPSIS = "…"
SHORT_ID_WIDTH = 24


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
    """`duration` from `since` to `now`; empty when unknown."""
    return "" if since is None else duration((now - since).total_seconds())


def clock(at: datetime | None, *, seconds: bool = True) -> str:
    """`12:03:04` in UTC (the seed reports' convention); `—` when unknown."""
    if at is None:
        return "—"
    return at.astimezone(UTC).strftime("%H:%M:%S" if seconds else "%H:%M")


def counts_text(counts: Mapping[str, int], *, compact: bool = False) -> str:
    """`3 running · 1 waiting · 1 stuck`, attention first; `nothing active` when all quiet.
    `compact` (narrow terminals): `3▶ 1◎ 1✖`, glyphs that read without colour."""
    if compact:
        parts = [f"{counts[s]}{glyph(s)}" for s in COUNT_ORDER if counts.get(s)]
        return " ".join(parts) if parts else "nothing active"
    parts = [f"{counts[s]} {word(s)}" for s in COUNT_ORDER if counts.get(s)]
    return " · ".join(parts) if parts else "nothing active"


def provider_text(row: ThreadRow) -> str:
    """`codex/gpt-5`, or whichever of the two is known (both are wire text)."""
    return one_line("/".join(p for p in (row.provider, row.model) if p))


def finding_marker(row: ThreadRow) -> str:
    """`⚑ stuck, serialized` when the row has findings, else empty."""
    kinds = []
    for finding in row.findings:
        text = FINDING_WORDS.get(finding.kind, finding.kind)
        if text not in kinds:
            kinds.append(text)
    return f"⚑ {', '.join(kinds)}" if kinds else ""


def middle_truncate(text: str, width: int) -> str:
    """`thread-abc…789`: the head and the tail, which is where ids differ."""
    if width < 3 or len(text) <= width:
        return text
    tail = (width - 1) // 2
    return text[: width - 1 - tail] + ELLIPSIS + text[-tail:]


def short_id(thread_id: str, width: int = SHORT_ID_WIDTH) -> str:
    """What to print for a thread id: a delegated child's clientRequestId (decoded from the
    id), else the id, truncated in the middle when longer than `width`. The clientRequestId
    is the agent's own text, so it is `one_line`d like any agent text."""
    return middle_truncate(one_line(client_request_id(thread_id) or thread_id), width)


def matches_short(thread_id: str, text: str) -> bool:
    """True when `text` is what `short_id` prints for `thread_id` (any width)."""
    crid = client_request_id(thread_id)
    crid = one_line(crid) if crid else None
    if text in (thread_id, crid):
        return True
    head, mark, tail = text.partition(ELLIPSIS)
    if not mark or not (head or tail):
        return False
    return any(
        len(full) > len(head) + len(tail) and full.startswith(head) and full.endswith(tail)
        for full in (thread_id, crid) if full
    )


def reason_detail(state: str, reason: str) -> str:
    """What a state reason adds to the state word: `waiting (1 child)` -> `1 child`,
    `done (failed) · not yet seen by parent` -> `failed · not yet seen by parent`,
    `idle` -> ``."""
    rest = reason.strip()
    for lead in sorted({state, word(state), word(state).rstrip("?")}, key=len, reverse=True):
        if rest.casefold().startswith(lead.casefold()):
            rest = rest[len(lead):]
            break
    rest = rest.lstrip(" ?:·")
    if rest.startswith("("):
        inner, close, after = rest[1:].partition(")")
        if close:
            rest = inner + after
    return rest.strip()


def one_line(text: str) -> str:
    """Agent text for a single line (`wiretext.display_text(one_line=True)`): line breaks and
    tabs become spaces, controls are made visible (`␛[2J`), bidi overrides neutralised, lone
    surrogates replaced, so a title can neither break a row nor drive the terminal."""
    return display_text(text, one_line=True)


def evidence_value(value: Any, width: int = 32) -> str:
    """One evidence value, short: a task or child id as its clientRequestId, a wire time as
    its UTC clock, anything long cut in the middle."""
    if isinstance(value, str):
        if (crid := client_request_id(value)) is not None:
            return one_line(crid)
        if len(value) >= 20 and value[4:5] == "-" and value[10:11] == "T":
            try:
                return clock(datetime.fromisoformat(value.replace("Z", "+00:00")))
            except ValueError:
                pass
        return middle_truncate(one_line(value), width)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return "[" + ", ".join(evidence_value(v, width) for v in value[:3]) + (
            f", +{len(value) - 3}]" if len(value) > 3 else "]")
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={evidence_value(v, width)}" for k, v in value.items()) + "}"
    return "null" if value is None else str(value)


def evidence_summary(evidence: Mapping[str, Any], records: int = 3) -> list[str]:
    """A finding's evidence in a few lines: its plain values on the first, then one line per
    record of a list of records (`pairs`, `missing`), at most `records` of them."""
    head = [f"{k}={evidence_value(v)}" for k, v in evidence.items()
            if not (isinstance(v, list) and v and all(isinstance(r, dict) for r in v))]
    lines = [" · ".join(head)] if head else []
    for key, value in evidence.items():
        if not (isinstance(value, list) and value and all(isinstance(r, dict) for r in value)):
            continue
        for record in value[:records]:
            lines.append(f"{key}: " + " · ".join(
                f"{k}={evidence_value(v)}" for k, v in record.items() if v is not None))
        if len(value) > records:
            lines.append(f"{key}: … {len(value) - records} more")
    return lines
