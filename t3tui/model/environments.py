"""Several environments in one picture: each environment's rows under a qualified id.

Two servers may hold threads with the same id (two copies of one scenario, or a thread
forked from another machine), so the combined view names every thread `NAME:ID`: the row's
`id`, `parent_id`, `children` and its findings' `thread_id`. Everything else (titles,
evidence, task rows) stays as the server wrote it. `Combined` offers what the app reads from
one `Supervisor` (`view`, `row`, `take_dirty`, `cursor_shell`) over several.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from t3tui.model.findings import rank_findings
from t3tui.model.rows import STATES, SupervisorView, ThreadRow
from t3tui.model.supervisor import Supervisor

SEP = ":"


def qualify(env: str, thread_id: str) -> str:
    return f"{env}{SEP}{thread_id}"


def unqualify(qualified: str) -> tuple[str, str]:
    """`laptop:thread-1` -> ("laptop", "thread-1"). Environment names hold no ':', so the
    first one splits, whatever the thread id holds."""
    env, sep, thread_id = qualified.partition(SEP)
    if not sep:
        raise ValueError(f"not an environment-qualified thread id: {qualified!r}")
    return env, thread_id


def qualify_row(env: str, row: ThreadRow) -> ThreadRow:
    return replace(
        row,
        id=qualify(env, row.id),
        parent_id=qualify(env, row.parent_id) if row.parent_id is not None else None,
        children=tuple(qualify(env, c) for c in row.children),
        findings=tuple(replace(f, thread_id=qualify(env, f.thread_id)) for f in row.findings),
    )


def merge_views(views: Sequence[tuple[str, SupervisorView]], now: datetime,
                down: Collection[str] = ()) -> SupervisorView:
    """One view of several environments, in the given order; counts and findings added up.
    `synchronized` holds when every environment with rows is synchronized, leaving out those
    in `down` (not connected): one lost server must not hold back the others' news."""
    rows: list[ThreadRow] = []
    counts = dict.fromkeys(STATES, 0)
    synchronized = True
    for env, view in views:
        rows.extend(qualify_row(env, r) for r in view.rows)
        for state, n in view.counts.items():
            counts[state] = counts.get(state, 0) + n
        if env not in down:
            synchronized = synchronized and (view.synchronized or not view.rows)
    findings = tuple(rank_findings([f for r in rows for f in r.findings]))
    return SupervisorView(now=now, rows=tuple(rows), findings=findings, counts=counts,
                          synchronized=synchronized, by_id={r.id: r for r in rows})


class Combined:
    """Several named supervisors read as one, with qualified thread ids."""

    def __init__(self, supervisors: Iterable[tuple[str, Supervisor]],
                 down: Callable[[], Collection[str]] = lambda: ()) -> None:
        """`down()`: the environments not connected now (see `merge_views`)."""
        self.supervisors: dict[str, Supervisor] = dict(supervisors)
        self._down = down

    def view(self, now: datetime) -> SupervisorView:
        views = [(n, s.view(now)) for n, s in self.supervisors.items()]
        return merge_views(views, now, self._down())

    def env_view(self, name: str, now: datetime) -> SupervisorView:
        return self.supervisors[name].view(now)

    def row(self, qualified: str, now: datetime) -> ThreadRow | None:
        env, thread_id = unqualify(qualified)
        supervisor = self.supervisors.get(env)
        row = supervisor.row(thread_id, now) if supervisor is not None else None
        return qualify_row(env, row) if row is not None else None

    def take_dirty(self) -> set[str]:
        return {qualify(n, t) for n, s in self.supervisors.items() for t in s.take_dirty()}

    def changed_rows(self, now: datetime) -> dict[str, ThreadRow | None]:
        """Every environment's changed rows (`Supervisor.changed_rows`), qualified."""
        return {qualify(n, t): qualify_row(n, r) if r is not None else None
                for n, s in self.supervisors.items() for t, r in s.changed_rows(now).items()}

    @property
    def cursor_shell(self) -> int | None:
        """Something was received once from some environment (the app's "has data")."""
        cursors = [s.cursor_shell for s in self.supervisors.values() if s.cursor_shell is not None]
        return max(cursors) if cursors else None
