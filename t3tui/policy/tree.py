"""Judge the tree, not one thread (T3 #5518: notifications fired while delegated subagents
were still running, because the parent's own run had paused).

A finding that says a thread is silent, paused or finished is explained while a descendant of
it still runs or waits: the parent's turn paused, or it sits quiet, because its children work.
Acting on it then (a check-in, an interrupt, a notify) touches the wrong thread. Findings about a
stop that did not land, a detached session or a result not delivered are not explained by a
busy child, so they are not held here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from t3tui.model import ThreadRow
from t3tui.model.rows import CREATING, NEEDS_INPUT, QUEUED, RUNNING, WAITING

# rules whose symptom a busy descendant explains
EXPLAINED_BY_TREE: Final = frozenset({
    "provider-finished-unheard", "provider-finished-run-running", "drain-too-long",
    "no-progress", "checkin-unanswered",
})
# a descendant in one of these states is still at work (or waiting for a person)
BUSY: Final = frozenset({CREATING, QUEUED, RUNNING, WAITING, NEEDS_INPUT})


@dataclass(frozen=True)
class Below:
    """The first busy descendant of a thread: its title, its state and how deep (1: a child)."""

    thread_id: str
    title: str
    state: str
    depth: int

    def why(self) -> str:
        who = "child" if self.depth == 1 else "descendant"
        state = "still running" if self.state == RUNNING else f"still {self.state}"
        return f"its {who} “{self.title or self.thread_id}” is {state}"


class Tree:
    """Children and states of every thread shown, fed with the rows that changed."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[tuple[str, ...], str, str]] = {}

    def update(self, changed: Mapping[str, ThreadRow | None]) -> None:
        for thread_id, row in changed.items():
            if row is None:
                self._rows.pop(thread_id, None)
            else:
                self._rows[thread_id] = (row.children, row.state, row.title)

    def forget_except(self, shown: Mapping[str, object]) -> None:
        for thread_id in [t for t in self._rows if t not in shown]:
            del self._rows[thread_id]

    def busy_below(self, thread_id: str) -> Below | None:
        """The nearest busy descendant (breadth first), or None."""
        seen = {thread_id}
        level = [thread_id]
        depth = 0
        while level:
            depth += 1
            nxt: list[str] = []
            for parent in level:
                for child in self._rows.get(parent, ((), "", ""))[0]:
                    if child in seen or child not in self._rows:
                        continue
                    seen.add(child)
                    _kids, state, title = self._rows[child]
                    if state in BUSY:
                        return Below(child, title, state, depth)
                    nxt.append(child)
            level = nxt
        return None
