"""After a tree stop's walk: the runs its stopped children's results start.

A stopped child's result wakes its parent (delegation.md §4.1): a wake run starts, or one
queued behind the parent's run starts once the walk has stopped that run, or the parent had
no run when the tree was chosen. That run begins after the walk has passed the parent, and no
single stop reaches it. A user who stopped the tree expects it quiet: so for a window after
the walk, until every stopped child's result is settled (delivered, acknowledged or disposed:
no wake can come of it any more), each run of the tree that a wake naming those children's
tasks started is stopped too, once, and said so. A run anything else started (a user's own
message) is left alone, and the window is bounded: this never goes on stopping runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from t3tui.actions.port import Clock, Port
from t3tui.actions.targets import StopTarget
from t3tui.model.forwarding import subtree

SETTLED = frozenset({"delivered", "acknowledged", "disposed"})
QUIET = "quiet"

# stops one run as the walk does (its step recorded there): None, or why the outcome is
# unknown (the socket is gone)
StopRun = Callable[[StopTarget], Awaitable[str | None]]


def _title(port: Port, thread_id: str, clock: Clock) -> str:
    row = port.supervisor.row(thread_id, clock())
    return (row.title or row.id) if row is not None else thread_id


class _Window:
    """The tree, its stopped children whose parent is in it (their results may wake that
    parent), and the runs already stopped (or chosen) there."""

    def __init__(self, port: Port, root: str, stopped: list[StopTarget], clock: Clock) -> None:
        self.port, self.clock = port, clock
        view = port.supervisor.view(clock())
        self.tree = frozenset(row.id for _, row in subtree(view, root))
        self.children: dict[str, str] = {}  # child thread id -> its parent, in the tree
        self.handled = {(t.thread_id, t.run_id) for t in stopped}
        for target in stopped:
            self.watch(target.thread_id)

    def watch(self, thread_id: str) -> None:
        """Its result may wake its parent, when that parent is in the tree. The parent is
        read from the thread's own lineage: its task row is on the parent's stream, which
        may not have caught up yet."""
        row = self.port.supervisor.row(thread_id, self.clock())
        parent = row.task.parent_thread_id if row is not None and row.task is not None \
            else row.parent_id if row is not None else None
        if parent in self.tree:
            self.children[thread_id] = parent

    def next(self) -> tuple[str, str] | str | None:
        """A run a stopped child's result started (thread, run), once the thread's row shows
        it (what a stop is confirmed by); QUIET once every result is settled and no such run
        is under way; None while neither. A result is settled by the very wake run that reads
        it, so the run is looked for in the parent's stream, which can be ahead of its row."""
        sup, now = self.port.supervisor, self.clock()
        tasks, settled = set(), True
        for child in self.children:
            row = sup.row(child, now)
            if row is None:
                continue  # no longer shown: nothing of it to watch
            if row.task is None:
                settled = False  # its task row not shown yet
            else:
                tasks.add(row.task.task_id)
                settled = settled and row.task.delivery in SETTLED
        for parent_id in dict.fromkeys(self.children.values()):
            for run_id, woke in sup.woken_runs(parent_id).items():
                if (parent_id, run_id) in self.handled or woke.isdisjoint(tasks):
                    continue
                parent = sup.row(parent_id, now)
                if parent is not None and parent.active_run_id == run_id:
                    return parent_id, run_id
                settled = False  # under way, its row not caught up yet
        return QUIET if settled else None

    def unsettled(self) -> list[tuple[str, str]]:
        out = []
        for child, parent in self.children.items():
            row = self.port.supervisor.row(child, self.clock())
            if row is not None and (row.task is None or row.task.delivery not in SETTLED):
                out.append((_title(self.port, child, self.clock),
                            _title(self.port, parent, self.clock)))
        return out


async def stop_restarts(port: Port, root: str, stopped: list[StopTarget], *, clock: Clock,
                        window: float, stop: StopRun) -> list[tuple[str, str]] | str:
    """Watch the tree under `root` for `window` seconds at most after the walk stopped
    `stopped`, stopping with `stop` each run their results start (see the module docstring).
    The results not settled when the window closed, as (child, parent) titles; or why the
    outcome is unknown (the socket is gone)."""
    watch = _Window(port, root, stopped, clock)
    if not watch.children:
        return []  # no stopped child's result can wake a parent in the tree
    loop = asyncio.get_running_loop()
    deadline = loop.time() + window
    while (left := deadline - loop.time()) > 0:
        seen = await port.wait_until(watch.next, left)
        if not isinstance(seen, tuple):
            break  # quiet, or the window closed
        watch.handled.add(seen)
        thread_id, run_id = seen
        lost = await stop(StopTarget(thread_id, run_id, _title(port, thread_id, clock),
                                     restarted=True))
        if lost is not None:
            return lost
        watch.watch(thread_id)  # its own result, now stopped, may wake its parent in turn
    return watch.unsettled()
