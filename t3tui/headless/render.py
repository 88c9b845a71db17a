"""Human output for the headless commands: the status table, findings, one-line events.

Titles, reasons and messages come from agents, so they go into `Text` as plain text, one line
each (`one_line`): `[bold]` in a title stays `[bold]`, and a newline or escape sequence cannot
break a row. Glyphs, state words, ages and short ids come from `t3tui.model.labels`, and the
cells' words, names for wire ids and finding stories from `t3tui.words`, as in the app, so a
thread reads the same in both. `raw` (`status --raw`) prints reasons and evidence as the
detectors wrote them (`key=value`), ids and all.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.text import Text

from t3tui.model import Finding, SupervisorView, ThreadRow
from t3tui.model.interest import WATCH_CAP_ENV
from t3tui.model.labels import (
    COUNT_ORDER,
    FINDING_WORDS,
    QUIET_STATES,
    age,
    evidence_summary,
    glyph,
    middle_truncate,
    one_line,
    provider_text,
    short_id,
    word,
)
from t3tui.model.remedy import remedy, remedy_command
from t3tui.model.status_json import EnvironmentStatus
from t3tui.model.wiretext import display_rich, display_text
from t3tui.words.cells import detail_cell, findings_cell, title_cell
from t3tui.words.story import story

STATE_STYLES = {
    "needs-input": "bold magenta",
    "stuck": "bold red",
    "creating": "cyan",
    "queued": "cyan",
    "running": "green",
    "draining": "yellow",
    "orphaned": "yellow",
    "waiting": "blue",
    "done": "bright_black",
    "settled": "bright_black",
    "idle": "bright_black",
}
FINDING_STYLE = "bold red"
GAP = 2
INDENT = "  "


class SafeConsole(Console):
    """The boundary of human CLI output: whatever is printed passes `display_rich`, so a field
    that was not `one_line`d on its way still cannot carry a control, a bidi override or a
    lone surrogate to the terminal. A str is printed as plain text, never as markup."""

    def print(self, *objects: Any, **kwargs: Any) -> None:  # type: ignore[override]
        safe = [
            display_rich(o) if isinstance(o, Text)
            else Text(display_text(o)) if isinstance(o, str)
            else o
            for o in objects
        ]
        super().print(*safe, **kwargs)


def console(stderr: bool = False) -> Console:
    # No highlighting or emoji codes: nothing in agent text may change how it looks.
    return SafeConsole(stderr=stderr, highlight=False, emoji=False, soft_wrap=True)


def width_of(out: Console) -> int | None:
    """The width to fit: the terminal's (or COLUMNS); None when piped, so nothing is cut."""
    return out.width if out.is_terminal or "COLUMNS" in os.environ else None


def state_label(state: str) -> Text:
    """`▶ running`, in the state's colour."""
    return Text(f"{glyph(state)} {word(state)}", style=STATE_STYLES.get(state, ""))


def title_of(row: ThreadRow | None, fallback: str) -> str:
    return title_cell(row, fallback)


def tree_guides(rows: Sequence[ThreadRow]) -> list[str]:
    """`├─ `, `│  └─ `, ... before each row of a view in tree order (depth first)."""
    last = [False] * len(rows)
    later_sibling: list[bool] = []  # by depth, scanning backwards
    for i in range(len(rows) - 1, -1, -1):
        depth = rows[i].depth
        del later_sibling[depth + 1:]
        later_sibling.extend([False] * (depth + 1 - len(later_sibling)))
        last[i] = not later_sibling[depth]
        later_sibling[depth] = True
    guides, open_levels = [], []  # open_levels[d]: the ancestor at depth d has a later sibling
    for row, is_last in zip(rows, last, strict=True):
        del open_levels[row.depth:]
        prefix = "".join("│  " if more else "   " for more in open_levels[1:])
        guides.append(prefix + ("└─ " if is_last else "├─ ") if row.depth else "")
        open_levels.append(not is_last)
    return guides


def detail_text(row: ThreadRow, view: SupervisorView | None = None) -> Text:
    """What the state word does not say: the reason's detail (ids by name in `view`),
    overlays, then findings."""
    text = Text().append(detail_cell(row, view), style="dim")
    if marker := findings_cell(row):
        text.append((" · " if text else "") + marker, style=FINDING_STYLE)
    return text


def summary(view: SupervisorView) -> Text:
    """`1 needs input · 2 running · 3 idle · ⚑ 1 finding` (every state with threads)."""
    text = Text()
    for state in (*COUNT_ORDER, *QUIET_STATES):
        if view.counts.get(state):
            text.append(" · " if text else "")
            text.append(f"{view.counts[state]} {word(state)}", style=STATE_STYLES.get(state))
    if not view.rows:
        text.append("no threads", style="dim")
    if view.findings:
        n = len(view.findings)
        text.append(" · ").append(f"⚑ {n} finding{'s' if n > 1 else ''}", style=FINDING_STYLE)
    if not view.synchronized:
        text.append(" · not synchronized", style="yellow")
    if view.watching is not None and view.watching.unwatched:
        # past the stream cap some active threads are not watched: say so, not pretend
        text.append(" · ").append(f"{view.watching.describe()} ({WATCH_CAP_ENV} raises the cap)",
                                  style="yellow")
    return text


@dataclass
class Column:
    header: str
    cells: list[Text]
    shrink_to: int | None = None  # None: never cut
    right: bool = False
    middle: bool = False  # cut in the middle (`head…tail`): ids, as `find_thread` takes them

    @property
    def natural(self) -> int:
        return max([len(self.header), *(c.cell_len for c in self.cells)])


def fit(columns: list[Column], width: int | None, droppable: Sequence[str]) -> list[int]:
    """Column widths within `width`. In turn: leave out the first droppable column; cut the
    shrinkable ones (widest first) down to their minimum; leave out the next droppable ones,
    one at a time. A state or an age is never cut (an id only in the middle, `Column.middle`);
    width 0 leaves a column out."""
    if width is None:
        return [c.natural for c in columns]
    stages = [(0, False), (1, False), *((n, True) for n in range(1, len(droppable) + 1))]
    for gone, shrink in stages:
        widths = [0 if c.header in droppable[:gone] else c.natural for c in columns]
        while shrink and (over := _excess(widths, width)) > 0:
            room = [(w - c.shrink_to, i) for i, (c, w) in enumerate(zip(columns, widths, strict=True))
                    if w and c.shrink_to is not None and w > c.shrink_to]
            if not room:
                break
            spare, i = max(room)
            widths[i] -= min(over, spare, max(1, over // len(room)))
        if _excess(widths, width) <= 0:
            break
    return widths


def _excess(widths: list[int], width: int) -> int:
    shown = [w for w in widths if w]
    return sum(shown) + GAP * (len(shown) - 1) - width


def table_lines(columns: list[Column], widths: list[int]) -> Iterator[Text]:
    shown = [(c, w) for c, w in zip(columns, widths, strict=True) if w]
    rows = [[Text(c.header, style="dim") for c, _ in shown]]
    rows += [[c.cells[r] for c, _ in shown] for r in range(len(columns[0].cells))]
    for cells in rows:
        line = Text()
        for n, (cell, (column, w)) in enumerate(zip(cells, shown, strict=True)):
            if column.middle and cell.cell_len > w:
                cell = Text(middle_truncate(cell.plain, w), style=cell.style)
            else:
                cell = cell.copy()
                cell.truncate(w, overflow="ellipsis")
            pad = " " * (w - cell.cell_len)
            if column.right:
                line.append(pad)
            line.append_text(cell)
            if n < len(shown) - 1:
                line.append(("" if column.right else pad) + " " * GAP)
        yield line


def thread_table(view: SupervisorView, width: int | None, raw: bool = False) -> Iterator[Text]:
    """One line per thread: state, time in state, tree and title, detail, provider, id."""
    rows = view.rows
    titles = [Text().append(guide, style="dim").append(title_of(row, row.id), style="bold")
              for row, guide in zip(rows, tree_guides(rows), strict=True)]
    columns = [
        Column("STATE", [state_label(r.state) for r in rows]),
        Column("FOR", [Text(age(r.state_since, view.now)) for r in rows], right=True),
        Column("THREAD", titles, shrink_to=16),
        # the detail says why a row is in its state: it keeps more room than the id, which
        # is still found (`find_thread`) when cut in the middle
        Column("DETAIL", [detail_text(r, None if raw else view) for r in rows], shrink_to=24),
        Column("PROVIDER", [Text(provider_text(r), style="dim") for r in rows], shrink_to=12),
        Column("ID", [Text(short_id(r.id), style="dim") for r in rows], shrink_to=12,
               middle=True),
    ]
    columns = [c for c in columns if c.header in ("STATE", "THREAD") or any(c.cells)]
    yield from table_lines(columns, fit(columns, width, ("PROVIDER", "FOR", "DETAIL")))


def wrapped(out: Console, text: Text, width: int | None, indent: str = INDENT) -> Iterator[Text]:
    """`text` in lines of `width`, each after `indent` (one line when there is no width)."""
    if width is None:
        yield Text(indent) + text
        return
    for line in text.wrap(out, max(20, width - len(indent))):
        line.rstrip()
        yield Text(indent) + line


def finding_lines(out: Console, finding: Finding, view: SupervisorView,
                  raw: bool = False) -> Iterator[Text]:
    """`⚑ serialized  Title  id  rule  3s`, then, indented, the finding's story (its sentence
    with threads by name, then the moments its evidence records), or with `raw` the reason
    and the evidence as `key=value`."""
    width = width_of(out)
    row = view.row(finding.thread_id)
    head = Text().append("⚑ " + FINDING_WORDS.get(finding.kind, finding.kind), style=FINDING_STYLE)
    head.append("  ").append(title_of(row, finding.thread_id), style="bold")
    head.append(f"  {short_id(finding.thread_id)}  {finding.rule}", style="dim")
    since = age(finding.since, view.now)
    if since:
        head.append(f"  for {since}", style="dim")
    yield head
    if raw:
        yield from wrapped(out, Text(one_line(finding.reason)), width)
        for line in evidence_summary(finding.evidence):
            yield from wrapped(out, Text(line, style="dim"), width)
        return
    sentence, timeline = story(finding, view, finding.thread_id)
    yield from wrapped(out, Text(one_line(sentence)), width)
    for line in timeline:
        yield from wrapped(out, Text(line, style="dim"), width, INDENT * 2)
    if (cure := remedy(finding)) is not None:  # the app's detail pane says the same
        command = remedy_command(finding, short_id(finding.thread_id))
        how = f"; from a shell: {command}" if command else ""
        yield from wrapped(out, Text(f"→ {cure}{how}"), width)


def report(out: Console, view: SupervisorView, raw: bool = False) -> Iterator[Text]:
    """The whole status report: summary, thread table, findings (`raw`: as the detectors
    wrote them)."""
    yield summary(view)
    if view.rows:
        yield Text("")
        yield from thread_table(view, width_of(out), raw)
    if view.findings:
        yield Text("")
        yield Text(f"FINDINGS ({len(view.findings)})", style="dim")
        for finding in view.findings:
            yield from finding_lines(out, finding, view, raw)


def print_lines(out: Console, lines: Iterator[Text]) -> None:
    for line in lines:
        out.print(line)


def environments_report(out: Console, envs: Sequence[EnvironmentStatus],
                        raw: bool = False) -> Iterator[Text]:
    """`status --env ...`: one section per environment, headed by its name and URL; the ids
    in it are that server's (act on one with NAME:ID)."""
    for i, env in enumerate(envs):
        if i:
            yield Text("")
        head = Text().append(f"── {one_line(env.name or '')}", style="bold")
        head.append(f"  {one_line(env.url or '')}", style="dim")
        if env.view is None:
            head.append(f"  ✖ not reached: {one_line(env.error or 'unknown error')}",
                        style="bold red")
            yield head
            continue
        yield head
        yield from report(out, env.view, raw)
