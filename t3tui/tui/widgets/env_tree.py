"""The thread tree with one top-level node per environment (`t3tui --env NAME=URL ...`).

A thin layer over `ThreadTree`: an environment's top-level threads hang under its node,
whose label is that environment's connection state and counts; the rows of an environment
that is not live are dimmed on their own, so one server down never greys out the others.
Environment nodes carry no thread id (`data` None): no thread action applies to them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text
from textual.widgets.tree import TreeNode

from t3tui.model import SupervisorView, ThreadRow
from t3tui.tui.view.labels import screen_safe
from t3tui.tui.widgets.thread_tree import ThreadTree


def env_of(thread_id: str) -> str:
    return thread_id.partition(":")[0]


class EnvThreadTree(ThreadTree):
    """`ThreadTree` grouped under environment nodes; see the module docstring."""

    def __init__(self, names: Sequence[str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.env_nodes: dict[str, TreeNode[str]] = {}
        for name in names:
            node = self.root.add(Text(name), None, expand=True)
            node.allow_expand = True
            self.env_nodes[name] = node
        self._stale_envs: frozenset[str] = frozenset()
        self._headers: dict[str, Text] = {}

    @property
    def selected_environment(self) -> str | None:
        node = self.cursor_node
        if node is None or node.data is not None:
            return None
        return next((n for n, e in self.env_nodes.items() if e is node), None)

    def action_select_cursor(self) -> None:
        """Enter on an environment's node folds or unfolds it; on a thread, opens it."""
        node = self.cursor_node
        if node is not None and self.selected_environment is not None:
            self._toggle_node(node)
            return
        super().action_select_cursor()

    def set_environments(self, headers: dict[str, Text], stale: Iterable[str]) -> None:
        """Each environment node's label, and which environments' rows are dimmed."""
        for name, label in headers.items():
            node = self.env_nodes.get(name)
            label = screen_safe(label)
            if node is not None and self._headers.get(name) != label:
                self._headers[name] = label
                node.set_label(label)
        stale_now = frozenset(stale)
        if stale_now != self._stale_envs:
            self._stale_envs = stale_now
            self._restyle()  # every label is drawn again, dimmed or not

    def _row_stale(self, row: ThreadRow, stale: bool) -> bool:
        # a stale environment's rows are drawn stale
        return stale or env_of(row.id) in self._stale_envs

    def _parent_node(self, row: ThreadRow) -> TreeNode[str]:
        if row.depth > 0 and row.parent_id in self.nodes:
            return self.nodes[row.parent_id]
        return self.env_nodes.get(env_of(row.id), self.root)

    def _top_groups(self, view: SupervisorView) -> list[tuple[TreeNode[str], list[str]]]:
        """Each environment's top level is its own group, under that environment's node."""
        tops: dict[str, list[str]] = {name: [] for name in self.env_nodes}
        for r in view.rows:
            if r.depth == 0:
                tops.setdefault(env_of(r.id), []).append(r.id)
        return [(self.env_nodes.get(n, self.root), ids) for n, ids in tops.items()]
