"""A thread's node in the tree: the row it shows, and its label drawn only when read.

A Textual `TreeNode` holds a finished label. Drawing one (cells, layout, styles, the screen
sanitiser) costs tens of microseconds, and a tree of 10,000 threads shows about 45 of them:
drawing every label on every full refresh was most of the first tree's time (BENCHMARKS.md,
issue 11). A `RowNode` keeps the row and the moment it was last given, and draws its label the
first time something reads it (a paint of its line, `node.label` in a test), again only after
the row, the moment or the tree's look (`ThreadTree.look_generation`) changed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from t3tui.model import ThreadRow

_BLANK = Text()


class DrawingTree(Protocol):
    """What a `RowNode` needs from the tree that holds it (`ThreadTree`), named here so that
    this module does not import the tree's, which imports this one."""

    look_generation: int

    def draw(self, node: RowNode) -> Text: ...


class RowNode(TreeNode[str]):
    """`data` is the thread id; `row`/`now` what the label is drawn from; `depth` its depth
    under the tree's (hidden) root, fixed while the node lives (a move is a new node)."""

    def __init__(self, tree: Tree[str], parent: TreeNode[str], row: ThreadRow,
                 now: datetime, depth: int, *, expanded: bool) -> None:
        self.row, self.now, self.depth = row, now, depth
        self._text: Text | None = None
        self._text_generation = -1
        # what the drawn label was made of (cells, indent): a relabel that makes the same
        # ones leaves the painted line alone
        self.drawn: object = None
        super().__init__(tree, parent, tree._new_id(), _BLANK, row.id, expanded=expanded,
                         allow_expand=bool(row.children))

    @property  # type: ignore[override]
    def _label(self) -> Text:
        tree: DrawingTree = self._tree  # type: ignore[assignment]
        if self._text is None or self._text_generation != tree.look_generation:
            self._text = tree.draw(self)
            self._text_generation = tree.look_generation
        return self._text

    @_label.setter
    def _label(self, _label: Text) -> None:
        # a row's label is always drawn from its row: a label set from outside (the Tree's
        # constructor, `set_label`) only means "draw it again"
        self._text = None

    def give(self, row: ThreadRow, now: datetime) -> None:
        """Show `row` at `now` from the next paint on (the caller repaints the line)."""
        self.row, self.now = row, now
        self._text = None
        self._updates += 1  # the Tree's line cache is keyed by it

    def shows(self, drawn: object) -> bool:
        """Its painted label is current and was made of `drawn` (cells, indent)."""
        tree: DrawingTree = self._tree  # type: ignore[assignment]
        return (self._text is not None and self._text_generation == tree.look_generation
                and self.drawn == drawn)
