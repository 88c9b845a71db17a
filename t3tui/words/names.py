"""Human names for wire ids on screen: `“Type check” (demo-typecheck)`, not
`node:delegated-task:command%3Amcp%3Apsess-…%3Adelegate-task%3Ademo-typecheck`.

T3 writes task and child-thread ids into text it generates ("Delegated task <id> reached a
terminal state. Use task_status with taskId <id> …") and the detectors put them in evidence.
`humanize` replaces every such id in a text with the title of the thread it names and its
short id, or with the short id alone when the thread is not in the view. Looking a name up
costs one dict lookup per id found, never a scan of the view. The raw ids stay one key away
(`v` shows them, `y` copies the selected thread's id; the report keeps them in an appendix).

A name is looked up in anything with `row(id) -> something with a title`: the app's and the
CLI's `SupervisorView`, or the threads a report document lists (`report.DocumentThreads`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from t3tui.model.labels import ELLIPSIS, one_line, short_id
from t3tui.model.taskids import CHILD_PREFIX, TASK_PREFIX

# a task or delegated-child id, optionally qualified by an environment name (`laptop:`)
_WIRE_ID = re.compile(r"(?:[A-Za-z0-9_.-]+:)?(?:node|thread):delegated-task:[A-Za-z0-9%._~\-]+")
TITLE_CHARS = 40


class Titled(Protocol):
    @property
    def title(self) -> str | None: ...


class Threads(Protocol):
    """Where names come from: a `SupervisorView`, or a report's own list of threads."""

    def row(self, thread_id: str) -> Titled | None: ...


@dataclass(frozen=True)
class Rows:
    """Threads from rows by id: `watch`'s latest rows, or the threads a report lists."""

    by_id: Mapping[str, Titled]

    def row(self, thread_id: str) -> Titled | None:
        return self.by_id.get(thread_id)


def child_of(wire_id: str) -> str:
    """The delegated child thread id a task id (or the child's own id) names."""
    if TASK_PREFIX in wire_id:
        head, _, rest = wire_id.partition(TASK_PREFIX)
        return head + CHILD_PREFIX + rest
    return wire_id


def _env(context_id: str | None) -> str | None:
    """`laptop` for a thread id qualified by its environment, else None."""
    if not context_id:
        return None
    head, sep, _ = context_id.partition(":")
    return head if sep and head not in ("thread", "node") else None


def _row(child: str, view: Threads | None, context_id: str | None) -> Titled | None:
    if view is None:
        return None
    row = view.row(child)
    env = _env(context_id)
    if row is None and env is not None and not child.startswith(f"{env}:"):
        row = view.row(f"{env}:{child}")
    return row


def name_for(wire_id: str, view: Threads | None, context_id: str | None = None) -> str:
    """`“Title” (short-id)` for a thread the view knows, else the short id alone."""
    child = child_of(wire_id.rstrip("."))
    row = _row(child, view, context_id)
    short = display_id(child)
    if row is None or not row.title:
        return short
    title = one_line(row.title)
    if len(title) > TITLE_CHARS:
        title = title[: TITLE_CHARS - 1] + "…"
    return f"“{title}” ({short})"


def display_id(thread_id: str) -> str:
    """A thread's id for the screen: a delegated child's clientRequestId, else the id cut in
    the middle; an environment's `laptop:` qualifier is left out (the tree shows it)."""
    return short_id(thread_id.partition(":")[2] if _env(thread_id) else thread_id)


def humanize(text: str, view: Threads | None, context_id: str | None = None) -> str:
    """`text` with every task or delegated-child id replaced by its human name."""
    if "delegated-task:" not in text:
        return text

    def name(match: re.Match[str]) -> str:
        token = match.group(0)
        stripped = token.rstrip(".")
        if (text.startswith(ELLIPSIS, match.end())
                and _row(child_of(stripped), view, context_id) is None):
            return ""  # an id cut short with its text: half an id names nothing
        return name_for(stripped, view, context_id) + token[len(stripped):]

    return _WIRE_ID.sub(name, text)
