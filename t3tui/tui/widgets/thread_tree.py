"""The thread tree: parents, delegated children and grandchildren, updated in place.

`sync()` keeps one `TreeNode` per thread id: it sets labels that changed, adds and removes
nodes only when the structure changed, and keeps the cursor and expansion by thread id, so a
stream of updates never rebuilds the tree or moves the user's selection.

Each label is a tree-table line (`table.py`): the tree column (guides, toggle, glyph, title)
padded to one width, then the state, time, children, finding, provider and id columns at the
same x on every row. `TreeHeader` shows the column names above it.

Mouse: a click selects a row, a click on the toggle (`▸`/`▾`) expands or collapses it, the
wheel scrolls, a double click opens the transcript (enter does the same).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from t3tui.model import SupervisorView, ThreadRow
from t3tui.tui.labels import RowStyles, screen_safe
from t3tui.tui.table import Layout, RowCells, header, layout, render_row, row_cells
from t3tui.tui.widgets.row_styles import ROW_COMPONENTS, RowStyled

TOGGLE_WIDTH = 2  # "▾ " on a row with children, two spaces on a leaf: titles line up


class TreeHeader(Static):
    """The column names over the tree-table; `ThreadTree` keeps it in step."""


class ThreadTree(RowStyled, Tree[str]):
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
        super().__init__("threads", id=id)
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 3
        self.nodes: dict[str, TreeNode[str]] = {}
        self._labels: dict[str, Text] = {}
        # What each label was built from: a row whose cells (and indent) equal the last ones
        # gets the same label, so most rows skip `render_row` on a refresh.
        self._drawn: dict[str, tuple[RowCells, int]] = {}
        self._drawn_with: tuple[RowStyles, bool, int] | None = None
        self._layout: Layout = layout(80)
        self._collapsed: set[str] = set()
        self.header: TreeHeader | None = None
        self._first_selected = False

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
        """Make the tree show `view` (restricted to `shown` ids); True if structure changed."""
        look = self._look(stale)
        rows = [r for r in view.rows if shown is None or r.id in shown]
        wanted = {r.id: r for r in rows}
        cursor = self.selected_id
        cursor_line = self.cursor_line
        changed = self._remove_unwanted(wanted)
        points: dict[str, TreeNode[str] | None] | None = None
        for row in rows:
            node = self.nodes.get(row.id)
            label = self._label_for(row, now, look, redraw=node is None)
            if label is None:
                continue
            if node is None:
                if points is None:
                    points = self._insertion_points(view)
                self._add(row, label, points.get(row.id))
                changed = True
            else:
                self._relabel(node, row, label)
        if changed:
            self._restore_cursor(cursor, cursor_line, view)
            if not self._first_selected and rows:
                # the first rows: the cursor starts on a thread, not on an environment's
                # node, so the detail pane shows something without a key press
                self._first_selected = True
                if self.selected_id is None:
                    self.select_thread(rows[0].id)
        return changed

    def relabel(self, rows: Iterable[ThreadRow], now: datetime, *, stale: bool = False) -> bool:
        """Redraw these rows' labels in place, for rows whose place in the tree is unchanged;
        rows not in the tree are skipped. False when the look changed (theme, width, stale):
        then only `sync` can redraw every row."""
        look = (self.row_styles(), stale, self._width())
        if look != self._drawn_with:
            return False
        for row in rows:
            node = self.nodes.get(row.id)
            if node is not None and (label := self._label_for(row, now, look)) is not None:
                self._relabel(node, row, label)
        return True

    def _width(self) -> int:
        """The width of a tree line (the scrollbar's column is always kept, see styles)."""
        return self.size.width or 80

    def _look(self, stale: bool) -> tuple[RowStyles, bool, int]:
        look = (self.row_styles(), stale, self._width())
        if self._drawn_with != look:
            self._drawn.clear()
            self._drawn_with = look
            self._layout = layout(look[2])
            self._show_header()
        return look

    def _show_header(self) -> None:
        if self.header is not None:
            self.header.update(Text(header(self._layout, TOGGLE_WIDTH), no_wrap=True,
                                    overflow="crop"))

    def on_resize(self, _event: events.Resize) -> None:
        """Lay the drawn rows out again at the new width, from the cells they were drawn
        from (their ages catch up on the next refresh)."""
        look = self._drawn_with
        if look is None or look[2] == self._width():
            return
        drawn = dict(self._drawn)
        self._look(look[1])  # a new layout; it forgets what was drawn
        for thread_id, (cells, indent) in drawn.items():
            node = self.nodes.get(thread_id)
            if node is None:
                continue
            self._drawn[thread_id] = (cells, indent)
            label = screen_safe(render_row(cells, indent, self._layout, look[0], stale=look[1]))
            self._labels[thread_id] = label
            node.set_label(label)

    @staticmethod
    def _depth(node: TreeNode[str]) -> int:
        """0 for a top-level node; -1 for the (hidden) root."""
        depth, parent = -1, node
        while parent is not None and not parent.is_root:
            depth, parent = depth + 1, parent.parent
        return depth

    def _indent(self, node: TreeNode[str] | None, row: ThreadRow) -> int:
        """What the Tree draws before a label: its guides, then the toggle."""
        depth = self._depth(node) if node is not None else self._depth(self._parent_node(row)) + 1
        return depth * self.guide_depth + TOGGLE_WIDTH

    def _label_for(self, row: ThreadRow, now: datetime, look: tuple[RowStyles, bool, int],
                   *, redraw: bool = False, node: TreeNode[str] | None = None) -> Text | None:
        """The row's label, or None when it would be the one already drawn."""
        if node is None:
            node = self.nodes.get(row.id)
        drawn = (row_cells(row, now), self._indent(node, row))
        if not redraw and self._drawn.get(row.id) == drawn:
            return None
        self._drawn[row.id] = drawn
        styles, stale, _width = look
        return screen_safe(render_row(drawn[0], drawn[1], self._layout, styles, stale=stale))

    def _relabel(self, node: TreeNode[str], row: ThreadRow, label: Text) -> None:
        if self._labels.get(row.id) != label:
            node.set_label(label)
            self._labels[row.id] = label
        if node.allow_expand != bool(row.children):
            node.allow_expand = bool(row.children)

    def _parent_node(self, row: ThreadRow) -> TreeNode[str]:
        if row.depth > 0 and row.parent_id in self.nodes:
            return self.nodes[row.parent_id]
        return self.root

    def _remove_unwanted(self, wanted: dict[str, ThreadRow]) -> bool:
        doomed = []
        for thread_id, node in self.nodes.items():
            row = wanted.get(thread_id)
            if row is None or node.parent is not self._parent_node(row):
                doomed.append(thread_id)
        for thread_id in doomed:
            node = self.nodes.get(thread_id)
            if node is None:
                continue  # already gone with an ancestor
            self._forget_subtree(node)
            node.remove()
        return bool(doomed)

    def _forget_subtree(self, node: TreeNode[str]) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            if current.data is not None:
                self.nodes.pop(current.data, None)
                self._labels.pop(current.data, None)
                self._drawn.pop(current.data, None)
            stack.extend(current.children)

    def _add(self, row: ThreadRow, label: Text, before: TreeNode[str] | None) -> None:
        parent = self._parent_node(row)
        if before is not None and before.parent is not parent:
            before = None
        node = parent.add(label, row.id, before=before,
                          expand=row.id not in self._collapsed)
        node.allow_expand = bool(row.children)
        self.nodes[row.id] = node
        self._labels[row.id] = label

    def _top_groups(self, view: SupervisorView) -> list[tuple[TreeNode[str], list[str]]]:
        """The top-level rows under the node that holds them (a subclass may group them)."""
        return [(self.root, [r.id for r in view.rows if r.depth == 0])]

    def _insertion_points(self, view: SupervisorView) -> dict[str, TreeNode[str] | None]:
        """Thread id -> the node of its next sibling (view order) already in the tree.

        One pass over the view per sync, so adding n rows costs O(n), not a scan of every
        sibling per row (O(n^2): 30 s for a first tree of 10,000, see BENCHMARKS.md). Rows
        are added in view order, so a sibling absent now is still absent when an earlier
        one is added.
        """
        groups = self._top_groups(view)
        groups += [(self.nodes.get(r.id, self.root), r.children) for r in view.rows if r.children]
        points: dict[str, TreeNode[str] | None] = {}
        for parent, ids in groups:
            following: TreeNode[str] | None = None
            for thread_id in reversed(ids):
                points[thread_id] = following
                node = self.nodes.get(thread_id)
                if node is not None and node.parent is parent:
                    following = node
        return points

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
