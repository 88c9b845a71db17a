"""A parent's children as bars on one UTC time axis: created, running, terminal, wait returned.

Serialized waits show as bars that start only where the previous one ends; parallel children
overlap. `bars()` computes the data (tests check it), `render_timeline()` draws it as plain
text with theme styles.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from rich.text import Text

from t3tui.model import SupervisorView, ThreadRow
from t3tui.tui.sources.transcripts import TranscriptStore
from t3tui.tui.view.labels import RowStyles, clock, glyph

QUEUED, RUNNING, AFTER, GAP, END, RETURNED = "░", "█", "▓", "·", "┃", "▼"
LEGEND = (f"{QUEUED} created  {RUNNING} running  {RETURNED} wait returned  {AFTER} ran on after "
          f"its wait  {GAP} between runs  {END} ended · UTC")
LEGEND_MIN_WIDTH = 96


@dataclass(frozen=True)
class Bar:
    """One child: when it was created, its runs' spans, when it ended (or now)."""

    thread_id: str
    title: str
    state: str
    created: datetime
    spans: tuple[tuple[datetime, datetime], ...]
    end: datetime
    ended: bool                      # False: still going at `end` (= now)
    wait_returned: datetime | None
    wait_mode: bool = False

    @property
    def start(self) -> datetime:
        return self.spans[0][0] if self.spans else self.created

    @property
    def wait_span(self) -> tuple[datetime, datetime] | None:
        """While the parent's wait call was open on this child (wait mode only)."""
        if not self.wait_mode:
            return None
        return (self.created, self.wait_returned or self.end)


def timeline_parent(view: SupervisorView, row: ThreadRow | None) -> ThreadRow | None:
    """The parent whose children to draw: the row itself, or its parent for a leaf child."""
    if row is None:
        return None
    if row.children:
        return row
    parent = view.row(row.parent_id) if row.parent_id else None
    return parent if parent is not None and parent.children else None


def _bar(child: ThreadRow, transcripts: TranscriptStore, now: datetime) -> Bar | None:
    runs = transcripts.get(child.id).ordered_runs()
    task = child.task
    created = task.started_at if task and task.started_at else None
    if created is None and runs:
        created = runs[0].requested_at or runs[0].started_at
    created = created or child.run_started_at
    if created is None:
        return None
    live = child.active_run_id is not None or child.state in ("creating", "queued")
    spans = []
    for run in runs:
        if run.started_at is None:
            continue
        active = run.id == child.active_run_id
        spans.append((run.started_at, run.completed_at or (now if active else run.started_at)))
    if not spans and child.run_started_at is not None:
        spans.append((child.run_started_at, now if live else child.run_started_at))
    end: datetime | None
    if live:
        end, ended = now, False
    elif task is not None and task.completed_at is not None:
        end, ended = task.completed_at, True
    else:
        end = max((s[1] for s in spans), default=None)
        end, ended = (end, True) if end is not None else (now, False)
    returned = task.wait_returned_at if task is not None and task.mode == "wait" else None
    end = max(end, created, *(s[1] for s in spans))
    return Bar(child.id, child.title or child.id, child.state, created, tuple(spans), end,
               ended, returned, task is not None and task.mode == "wait")


def bars(view: SupervisorView, parent: ThreadRow, transcripts: TranscriptStore,
         now: datetime) -> list[Bar]:
    out = []
    for child_id in parent.children:
        child = view.row(child_id)
        if child is not None and (bar := _bar(child, transcripts, now)) is not None:
            out.append(bar)
    return out


def most_at_once(spans: list[tuple[datetime, datetime]]) -> int:
    """The most spans open at one instant (one ending as another starts is not overlap)."""
    points = [(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans]
    best = current = 0
    for _, delta in sorted(points, key=lambda p: (p[0], p[1])):
        current += delta
        best = max(best, current)
    return best


def waits_at_once(found: list[Bar]) -> int:
    """The most wait calls open at once: 1 when the parent's waits were serialized."""
    return most_at_once([w for b in found if (w := b.wait_span) is not None])


def runs_at_once(found: list[Bar]) -> int:
    return most_at_once([span for b in found for span in b.spans])


def summary(parent: ThreadRow, found: list[Bar]) -> tuple[str, bool]:
    """One line saying what the chart shows; True when it is a problem."""
    if any(f.kind == "serialized_wait" for f in parent.findings):
        return "⚑ serialized: each wait call started only when the previous one returned", True
    waits = sum(1 for b in found if b.wait_mode)
    if waits > 1:
        return f"up to {waits_at_once(found)} of {waits} wait calls open at once", False
    at_once = runs_at_once(found)
    return (f"up to {at_once} children ran at once" if at_once > 1
            else "no two children ran at once"), False


def render_timeline(parent: ThreadRow, found: list[Bar], width: int, styles: RowStyles) -> Text:
    text = Text(no_wrap=True, overflow="crop")
    text.append(f"Timeline · {parent.title or parent.id}", style=styles.title)
    if not found:
        text.append("\nno children with known times yet", style=styles.dim)
        return text
    name_w = max(10, min(22, width // 4))
    bar_w = max(10, width - name_w - 1)
    t0 = min(b.created for b in found)
    t1 = max(b.end for b in found)
    span = max((t1 - t0).total_seconds(), 1.0)

    def col(at: datetime) -> int:
        return min(bar_w - 1, max(0, int((at - t0).total_seconds() / span * (bar_w - 1))))

    line, problem = summary(parent, found)
    text.append("\n" + line, style=styles.finding if problem else styles.dim)
    axis = [" "] * bar_w
    marks = [(0, t0), (bar_w - 1, t1)]
    if bar_w >= 40:
        marks.insert(1, (bar_w // 2, t0 + timedelta(seconds=span / 2)))
    for pos, at in marks:
        label = clock(at)
        start = min(max(0, pos - len(label) // 2), bar_w - len(label))
        axis[start:start + len(label)] = list(label)
    text.append("\n" + " " * (name_w + 1) + "".join(axis), style=styles.dim)
    for bar in found:
        text.append("\n")
        name = f"{glyph(bar.state)} {bar.title}"
        name = name if len(name) <= name_w else name[: name_w - 1] + "…"
        style = styles.states.get(bar.state)
        text.append(f"{name:<{name_w}} ", style=style)
        text.append(_cells(bar, bar_w, col), style=style)
    if width >= LEGEND_MIN_WIDTH:  # narrow terminals: the legend is in the help screen
        text.append("\n" + LEGEND, style=styles.dim)
    return text


def _cells(bar: Bar, width: int, col: Callable[[datetime], int]) -> str:
    cells = [" "] * width
    first = col(bar.start)
    for c in range(col(bar.created), first):
        cells[c] = QUEUED
    if bar.spans:
        for c in range(first, col(bar.spans[-1][1]) + 1):
            cells[c] = GAP
        for start, end in bar.spans:
            for c in range(col(start), col(end) + 1):
                cells[c] = RUNNING
    else:
        for c in range(col(bar.created), col(bar.end) + 1):
            cells[c] = QUEUED
    if bar.wait_returned is not None:
        returned = col(bar.wait_returned)
        for c in range(returned + 1, width):
            if cells[c] == RUNNING:
                cells[c] = AFTER
    if bar.ended:
        cells[col(bar.end)] = END
    if bar.wait_returned is not None:
        cells[col(bar.wait_returned)] = RETURNED
    return "".join(cells)
