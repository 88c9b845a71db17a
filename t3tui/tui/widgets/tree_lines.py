"""Textual's `Tree`, with its laid-out lines kept when no line moves.

The Tree keeps one line per shown node (`_tree_lines`), laid out in one O(nodes) pass, and
drops them on every style update and every resize. A new style (a class such as `-stale`,
focus moving, the theme) or a new height moves no line: here it paints them again, and only
what changes their places or widths lays them out again. At 10,000 threads each pass is
17-50 ms, and a first tree had up to three more of them (the connection turning live, the focus
settling, the banner above the tree going away).
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Tree


class KeptLinesTree(Tree[str]):
    """A `Tree` whose lines survive a new style; `_repaint()` paints every line again."""

    def notify_style_update(self) -> None:
        Widget.notify_style_update(self)  # not Tree's, which lays the lines out again
        self._repaint()

    def _repaint(self) -> None:
        self._line_cache.clear()  # painted strips (keyed by `_updates`)
        self._updates += 1
        self.refresh()

    def process_label(self, label: str | Text) -> Text:
        # the Tree keeps a label's first line; ours are one line already (no copy per node)
        if isinstance(label, Text) and "\n" not in label.plain:
            return label
        return super().process_label(label)
