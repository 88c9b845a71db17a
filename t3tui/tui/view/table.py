"""The tree as a table: one row per thread, the tree column then aligned columns.

Two pure steps, so a row costs the same whoever draws it and nothing here scans the tree:
`row_cells(row, now)` turns a thread row into plain cell strings (what the row says), and
`layout(width)` + `render_row(cells, indent, layout, styles)` place them (how it looks at a
width). Column widths are fixed per column, never measured over all rows, so a row's line
depends on that row alone. As the tree narrows, columns leave in reverse order of
importance: short id, provider, children, then the finding word shrinks to its marker; the
tree, state, time and finding columns stay down to an 80-column terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from t3tui.model import ThreadRow
from t3tui.model.labels import (
    COUNT_ORDER,
    ELLIPSIS,
    FINDING_WORDS,
    NATIVE_GLYPH,
    QUIET_STATES,
    age,
    glyph,
    middle_truncate,
    one_line,
    provider_text,
    word,
)
from t3tui.tui.view.labels import RowStyles
from t3tui.words.names import display_id

# a narrow finding column's words
SHORT_FINDING = {"serialized": "serial", "undelivered": "undeliv", "orphaned": "orphan"}
SETTLED_MARK = "■"  # the settled glyph, after the state word of a settled thread still busy
GAP = 2  # spaces between columns


@dataclass(frozen=True)
class RowCells:
    """What one row says, as plain strings (agent text already one-lined)."""

    state: str
    glyph: str
    title: str
    native: bool
    state_word: str
    time: str
    children: str
    finding: str
    finding_short: str
    provider: str
    short_id: str


@dataclass(frozen=True)
class Column:
    name: str
    header: str
    width: int
    right: bool = False


# In order of importance: a narrower tree drops columns from the end of this list.
STATE = Column("state", "STATE", 11)
TIME = Column("time", "FOR", 5, right=True)
FINDING = Column("finding", "FINDING", 13)
FINDING_SHORT = Column("finding", "FINDING", 9)
CHILDREN = Column("children", "CHILDREN", 12)
PROVIDER = Column("provider", "PROVIDER", 20)
SHORT_ID = Column("short_id", "ID", 16)
OPTIONAL = (CHILDREN, PROVIDER, SHORT_ID)
TREE_MIN = 24  # the tree column never gets narrower than this while a column can go instead


@dataclass(frozen=True)
class Layout:
    width: int                     # the whole line
    tree: int                      # the tree column, guides and toggle included
    columns: tuple[Column, ...]    # after the tree column, in screen order


def layout(width: int) -> Layout:
    """The columns that fit a line of `width` cells, widest set first."""
    order = (STATE, TIME, FINDING)
    extra = list(OPTIONAL)
    while True:
        cols = (*order, *extra)
        used = sum(c.width + GAP for c in cols)
        if width - used >= TREE_MIN or (not extra and order[-1] is FINDING_SHORT):
            break
        if extra:
            extra.pop()
        else:
            order = (STATE, TIME, FINDING_SHORT)
    # screen order: state, time, children, finding, provider, id
    rank = {"state": 0, "time": 1, "children": 2, "finding": 3, "provider": 4, "short_id": 5}
    cols = tuple(sorted((*order, *extra), key=lambda c: rank[c.name]))
    tree = max(8, width - sum(c.width + GAP for c in cols))
    return Layout(width=width, tree=tree, columns=cols)


def child_cell(row: ThreadRow) -> str:
    """`3: 2▶ 1✔`: how many direct children, then how many in each state."""
    if not row.children:
        return ""
    parts = [f"{n}{glyph(s)}" for s in (*COUNT_ORDER, *QUIET_STATES)
             if (n := row.child_counts.get(s, 0))]
    if len(parts) == 1:
        return parts[0]
    return f"{len(row.children)}: {' '.join(parts)}" if parts else str(len(row.children))


def finding_cells(row: ThreadRow) -> tuple[str, str]:
    """(`⚑ serialized`, `⚑ seri…`)-like cells; `+1` when more than one kind."""
    kinds: list[str] = []
    for finding in row.findings:
        text = FINDING_WORDS.get(finding.kind, finding.kind)
        if text not in kinds:
            kinds.append(text)
    if not kinds:
        return "", ""
    more = f" +{len(kinds) - 1}" if len(kinds) > 1 else ""
    return f"⚑ {kinds[0]}{more}", f"⚑ {SHORT_FINDING.get(kinds[0], kinds[0])}"


def row_cells(row: ThreadRow, now: datetime) -> RowCells:
    """The row's cells at `now` (only the time cell depends on it). Pure."""
    state_word = word(row.state)
    if row.settled and row.state != "settled":
        state_word += f" {SETTLED_MARK}"
    finding, finding_short = finding_cells(row)
    return RowCells(
        state=row.state, glyph=glyph(row.state), title=one_line(row.title or row.id),
        native=row.origin == "provider_native", state_word=state_word,
        time=age(row.state_since, now), children=child_cell(row), finding=finding,
        finding_short=finding_short, provider=one_line(provider_text(row)),
        short_id=middle_truncate(display_id(row.id), SHORT_ID.width))


def fit(text: str, width: int) -> str:
    """`text` cut to `width` cells with `…`, padded with spaces to exactly `width`."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        out = ""
        for ch in text:
            if cell_len(out + ch) > width - 1:
                break
            out += ch
        text = out + ELLIPSIS
    return text + " " * (width - cell_len(text))


def render_row(cells: RowCells, indent: int, lay: Layout, styles: RowStyles, *,
               stale: bool = False) -> Text:
    """One line of exactly `lay.width - indent` cells; `indent` is what the tree draws
    before the label (guides and the expand toggle)."""
    state_style = styles.states.get(cells.state, Style())
    line = Text(no_wrap=True, overflow="crop", end="")
    head = f"{cells.glyph} " + (f"{NATIVE_GLYPH} " if cells.native else "")
    room = lay.tree - indent
    line.append(fit(head, min(room, cell_len(head))), style=state_style)
    line.append(fit(cells.title, max(0, room - cell_len(head))), style=styles.title)
    for col in lay.columns:
        line.append(" " * GAP)
        value = _value(cells, col)
        text = value.rjust(col.width) if col.right and cell_len(value) <= col.width \
            else fit(value, col.width)
        line.append(text, style=_style(col, styles, state_style))
    if stale:
        line.stylize(styles.dim)
    return line


def header(lay: Layout, indent: int = 0) -> str:
    """The column names, aligned with `render_row` lines drawn after `indent` cells."""
    parts = [fit("THREAD", lay.tree - indent)] if lay.tree > indent else []
    for col in lay.columns:
        parts.append(" " * GAP)
        parts.append(col.header.rjust(col.width) if col.right else fit(col.header, col.width))
    return " " * min(indent, lay.tree) + "".join(parts)


def _value(cells: RowCells, col: Column) -> str:
    if col is FINDING_SHORT:
        return cells.finding_short
    return str(getattr(cells, {"state": "state_word"}.get(col.name, col.name)))


def _style(col: Column, styles: RowStyles, state_style: Style) -> Style:
    if col.name in ("state", "time"):
        return state_style
    if col.name == "finding":
        return styles.finding
    return styles.dim
