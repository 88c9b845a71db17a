"""The thread tree: parents, delegated children and grandchildren, updated in place.

`sync()` keeps one node per thread id (`RowNode`: it holds the row and draws its label only
when painted, so a refresh costs O(1) per row off screen): it hands each node its row, adds
and removes nodes only when the structure changed, and keeps the cursor and expansion by
thread id, so a stream of updates never rebuilds the tree or moves the user's selection.

Each label is a tree-table line (`table.py`): the tree column (guides, toggle, glyph, title)
padded to one width, then the state, time, children, finding, provider and id columns at the
same x on every row. `TreeHeader` shows the column names above it.

Mouse: a click selects, a click on a toggle (`▸`/`▾`) folds, a double click (enter) opens.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.scrollbar import ScrollBar
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from t3tui.model import SupervisorView, ThreadRow
from t3tui.tui.view.labels import RowStyles, screen_safe
from t3tui.tui.view.table import Layout, header, layout, render_row, row_cells
from t3tui.tui.widgets.row_node import RowNode
from t3tui.tui.widgets.row_styles import ROW_COMPONENTS, RowStyled
from t3tui.tui.widgets.scrollbar import SteadyScrollBar
from t3tui.tui.widgets.tree_lines import KeptLinesTree

TOGGLE_WIDTH = 2  # "▾ " on a row with children, two spaces on a leaf: titles line up


class TreeHeader(Static):
    """The column names over the tree-table; `ThreadTree` keeps it in step."""


class ThreadTree(RowStyled, KeptLinesTree):
    """A `Tree` whose node data is the thread id."""

    # Not the running glyph (▶): a toggle must not read as a state.
    ICON_NODE = "▸ "
    ICON_NODE_EXPANDED = "▾ "
    COMPONENT_CLASSES = set(ROW_COMPONENTS)
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="tree.down"),
        Binding("k", "cursor_up", "Up", show=False, id="tree.up"),
    ]

    class OpenRequested(Message):
        """Enter on a row: open that thread."""

        def __init__(self, thread_id: str) -> None:
            super().__init__()
            self.thread_id = thread_id

    def __init__(self, *, id: str | None = None) -> None:
        # a Text, not a str: Tree reads a str label as markup, and that first markup in a
        # process loads rich's emoji table (~4 ms of every start) for a root never shown
        super().__init__(Text("threads"), id=id)
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 3
        self.nodes: dict[str, RowNode] = {}
        # the look every label is drawn in (styles, stale, width); a new look is a new
        # generation, and each row node draws its label again when it is next painted
        self._drawn_with: tuple[RowStyles, bool, int] | None = None
        self.look_generation = 0
        self._layout: Layout = layout(80)
        self._collapsed: set[str] = set()
        self.header: TreeHeader | None = None
        self._first_selected = False
        self._scroll_pending = False  # the cursor to be scrolled into view once laid out

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """Textual's own property (8.2.8) with the bar that is drawn again only when its look
        changed (`widgets/scrollbar.py`): Textual offers no other way to choose the class."""
        if self._vertical_scrollbar is None:
            bar = SteadyScrollBar(vertical=True, name="vertical",
                                  thickness=self.scrollbar_size_vertical)
            bar.display = False
            self._vertical_scrollbar = bar
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

    # -- selection --

    @property
    def selected_id(self) -> str | None:
        node = self.cursor_node
        return node.data if node is not None else None

    def select_thread(self, thread_id: str) -> bool:
        node = self.nodes.get(thread_id)
        if node is None:
            return False
        parent = node.parent
        while parent is not None and not parent.is_root:
            parent.expand()
            parent = parent.parent
        _ = self.last_line  # lay the lines out so the node's line number is current
        self.move_cursor(node)
        return True

    def scroll_to_line(self, line: int, animate: bool = True) -> None:
        """Scroll the line into view, once the tree has a window: the first tree can arrive
        before the tree is laid out, and a line scrolled into a 0-row window ends up at the
        top, hiding the lines above it (the first environment's header)."""
        if not self.size.height:
            self._scroll_pending = True
            return
        super().scroll_to_line(line, animate=animate)

    def action_select_cursor(self) -> None:
        thread_id = self.selected_id
        if thread_id is not None:
            self.post_message(self.OpenRequested(thread_id))

    async def _on_click(self, event: events.Click) -> None:
        """A click selects (the Tree's default also opens); a double click opens."""
        meta = event.style.meta
        if "line" not in meta:
            return
        event.prevent_default()
        async with self.lock:
            line = meta["line"]
            if meta.get("toggle", False):
                node = self.get_node_at_line(line)
                if node is not None:
                    self._toggle_node(node)
                return
            self.cursor_line = line
            if event.chain >= 2:
                self.action_select_cursor()

    def _toggle_node(self, node: TreeNode[str]) -> None:
        """Expand or collapse, keeping the cursor on its thread (the Tree keeps the line
        number, which after a toggle above it is another thread); a thread that a collapse
        hides hands the cursor to the collapsed row."""
        selected = self.cursor_node
        super()._toggle_node(node)
        if selected is None:
            return
        _ = self.last_line  # lay the lines out again
        ancestor = selected.parent
        while ancestor is not None and not ancestor.is_root and ancestor.is_expanded:
            ancestor = ancestor.parent
        visible = ancestor is None or ancestor.is_root
        self.move_cursor(selected if visible else node)

    def render_label(self, node: TreeNode[str], base_style: Style, style: Style) -> Text:
        if node.allow_expand:
            return super().render_label(node, base_style, style)
        label = node._label.copy()
        label.stylize(style)
        return Text.assemble((" " * TOGGLE_WIDTH, base_style), label)

    def _on_tree_node_collapsed(self, event: Tree.NodeCollapsed[str]) -> None:
        if event.node.data is not None:
            self._collapsed.add(event.node.data)

    def _on_tree_node_expanded(self, event: Tree.NodeExpanded[str]) -> None:
        self._collapsed.discard(event.node.data or "")

    # -- sync --

    def sync(self, view: SupervisorView, now: datetime, *, shown: set[str] | None = None,
             stale: bool = False) -> bool:
        """Make the tree show `view` (restricted to `shown` ids); True if structure changed.

        O(rows) cheap steps: a kept row is handed to its node (its label is drawn when it is
        painted, `row_node.py`); new nodes are placed among their siblings in one pass."""
        self._look(stale)
        rows = [r for r in view.rows if shown is None or r.id in shown]
        wanted = {r.id: r for r in rows}
        cursor = self.selected_id
        cursor_line = self.cursor_line
        changed = self._remove_unwanted(wanted)
        parents: dict[int, TreeNode[str]] = {}
        window = self._window()
        for row in rows:
            node = self.nodes.get(row.id)
            if node is None:
                node = self._add(row, now)
                parents[id(node.parent)] = node.parent  # type: ignore[assignment]
            else:
                self._give(node, row, now, window)
        if parents:
            self._place(view, parents)
            changed = True
        if changed:
            self._invalidate()
            self._restore_cursor(cursor, cursor_line, view)
            if not self._first_selected and rows:
                # the first rows: the cursor starts on a thread, not on an environment's
                # node, so the detail pane shows something without a key press
                self._first_selected = True
                if self.selected_id is None:
                    self.select_thread(rows[0].id)
        return changed

    def relabel(self, rows: Iterable[ThreadRow], now: datetime, *, stale: bool = False) -> bool:
        """Show these rows in place, for rows whose place in the tree is unchanged; rows not
        in the tree are skipped. (A look that changed, theme, width or stale, redraws every
        label as it is painted.) True: nothing is left for `sync` to do."""
        self._look(stale)
        window = self._window()
        for row in rows:
            node = self.nodes.get(row.id)
            if node is not None:
                self._give(node, row, now, window)
        return True

    def draw(self, node: RowNode) -> Text:
        """A row node's label from its row, moment and depth, in the tree's look."""
        styles, stale, _width = self._drawn_with or self._look(False)
        cells, indent = row_cells(node.row, node.now), self._indent(node, node.row)
        node.drawn = (cells, indent)
        return screen_safe(render_row(cells, indent, self._layout, styles,
                                      stale=self._row_stale(node.row, stale)))

    def _row_stale(self, _row: ThreadRow, stale: bool) -> bool:
        """Whether this row is drawn dimmed (a subclass may dim some rows on their own)."""
        return stale

    def _give(self, node: RowNode, row: ThreadRow, now: datetime,
              window: tuple[int, int]) -> None:
        if node.allow_expand != bool(row.children):
            node.allow_expand = bool(row.children)
        if row is node.row and now == node.now:
            return
        if not window[0] <= node._line < window[1]:
            node.give(row, now)  # drawn if and when it is painted
            return
        # on screen: repaint the line only when its label would read differently
        if node.shows((row_cells(row, now), self._indent(node, row))):
            node.row, node.now = row, now
            return
        node.give(row, now)
        self._refresh_line(node._line)

    def _window(self) -> tuple[int, int]:
        """The lines on screen now, [first, end): empty while the lines are to be laid out
        again (then every line is repainted anyway)."""
        top = self.scroll_offset.y
        return (0, 0) if self._tree_lines_cached is None else (top, top + self.size.height)

    def get_label_width(self, node: TreeNode[str]) -> int:
        # every row line is the tree's width (`render_row`): no label drawn to measure it
        if isinstance(node, RowNode):
            return max(0, self._layout.width - node.depth * self.guide_depth)
        return super().get_label_width(node)

    def _width(self) -> int:
        """A tree line's width: left of the scrollbar's column, always kept (see styles)."""
        return self.scrollable_content_region.width or 80

    def _look(self, stale: bool) -> tuple[RowStyles, bool, int]:
        look = (self.row_styles(), stale, self._width())
        if self._drawn_with != look:
            self._drawn_with = look
            self._layout = layout(look[2])
            self._restyle()
            self._show_header()
        return look

    def _restyle(self) -> None:
        """Every label is drawn again (in the new look) as it is painted; the lines stay (a
        look moves no node: laying 10,000 lines out again cost a first tree a pass)."""
        self.look_generation += 1
        self._repaint()

    def _show_header(self) -> None:
        if self.header is not None:
            self.header.update(Text(header(self._layout, TOGGLE_WIDTH), no_wrap=True,
                                    overflow="crop"))

    def on_resize(self, event: events.Resize) -> None:
        """Lay the rows out again at a new width (their ages catch up on the next refresh);
        a new height only paints them (not Tree's handler, which lays every line out again:
        O(threads) each time the banner above comes or goes). The first window brings a
        cursor placed before it into view."""
        event.prevent_default()
        self._line_cache.grow(event.size.height)
        if self._scroll_pending and self.size.height:
            self._scroll_pending = False
            if self.cursor_node is not None:
                self.scroll_to_node(self.cursor_node, animate=False)
        look = self._drawn_with
        if look is not None and look[2] != self._width():
            self._look(look[1])
            self._invalidate()  # the lines' widths (the virtual size) follow the layout's
        else:
            self._repaint()

    @staticmethod
    def _depth(node: TreeNode[str]) -> int:
        """0 for a top-level node; -1 for the (hidden) root."""
        if isinstance(node, RowNode):
            return node.depth
        depth, parent = -1, node
        while parent is not None and not parent.is_root:
            depth, parent = depth + 1, parent.parent
        return depth

    def _indent(self, node: TreeNode[str] | None, row: ThreadRow) -> int:
        """What the Tree draws before a label: its guides, then the toggle."""
        depth = self._depth(node) if node is not None else self._depth(self._parent_node(row)) + 1
        return depth * self.guide_depth + TOGGLE_WIDTH

    def _parent_node(self, row: ThreadRow) -> TreeNode[str]:
        if row.depth > 0 and row.parent_id in self.nodes:
            return self.nodes[row.parent_id]
        return self.root

    def _remove_unwanted(self, wanted: dict[str, ThreadRow]) -> bool:
        """Drop the nodes of rows gone or moved, with their subtrees: one pass over each
        parent's children, not a list search per node (O(siblings) each)."""
        doomed = [node for thread_id, node in self.nodes.items()
                  if (row := wanted.get(thread_id)) is None
                  or node.parent is not self._parent_node(row)]
        if not doomed:
            return False
        gone: set[int] = set()
        for node in doomed:
            if id(node) not in gone:
                self._forget_subtree(node, gone)
        for parent in {id(n.parent): n.parent for n in doomed}.values():
            if parent is not None and id(parent) not in gone:
                parent._children[:] = [c for c in parent._children if id(c) not in gone]
                parent._updates += 1
        return True

    def _forget_subtree(self, node: TreeNode[str], gone: set[int]) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            gone.add(id(current))
            self._tree_nodes.pop(current.id, None)
            if current.data is not None:
                self.nodes.pop(current.data, None)
            stack.extend(current._children)

    def _add(self, row: ThreadRow, now: datetime) -> RowNode:
        """A node for `row` under its parent's; `_place` puts it among its siblings."""
        parent = self._parent_node(row)
        node = RowNode(self, parent, row, now, self._depth(parent) + 1,
                       expanded=row.id not in self._collapsed)
        self._tree_nodes[node.id] = node
        self.nodes[row.id] = node
        return node

    def _top_groups(self, view: SupervisorView) -> list[tuple[TreeNode[str], list[str]]]:
        """The top-level rows under the node that holds them (a subclass may group them)."""
        return [(self.root, [r.id for r in view.rows if r.depth == 0])]

    def _place(self, view: SupervisorView, parents: dict[int, TreeNode[str]]) -> None:
        """The children of `parents` (by `id()`) in view order: one pass over the view per
        sync, so adding n rows is O(n) (inserting each before its next sibling searched the
        sibling list: O(n^2), BENCHMARKS.md). Children the view does not list keep their
        place at the end."""
        groups = self._top_groups(view)
        groups += [(node, r.children) for r in view.rows
                   if r.children and (node := self.nodes.get(r.id)) is not None]
        for parent, ids in groups:
            if id(parent) not in parents:
                continue
            placed = [n for i in ids if (n := self.nodes.get(i)) is not None
                      and n.parent is parent]
            kept = {id(n) for n in placed}
            placed += [c for c in parent._children if id(c) not in kept]
            parent._children[:] = placed
            parent._updates += 1

    def _restore_cursor(self, thread_id: str | None, line: int, view: SupervisorView) -> None:
        if thread_id is not None and self.select_thread(thread_id):
            return
        # The selected thread went away: stay near where the cursor was.
        if thread_id is not None:
            row = view.row(thread_id)
            if row is not None and row.parent_id and self.select_thread(row.parent_id):
                return
        last = self.last_line
        if last >= 0:
            self.move_cursor_to_line(min(max(line, 0), last))
