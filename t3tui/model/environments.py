"""Several environments in one picture: each environment's rows under a qualified id.

Two servers may hold threads with the same id (two copies of one scenario, or a thread
forked from another machine), so the combined view names every thread `NAME:ID`: the row's
`id`, `parent_id`, `children`, its task row's `parent_thread_id` and its findings'
`thread_id`. Everything else (titles, evidence, task ids) stays as the server wrote it.
`Combined` offers one `Supervisor`'s whole interface over several: a call about a thread goes
to that thread's own environment, a call about every thread asks each; only the feed of one
server's shell stream has no single meaning here (`Combined.PER_ENVIRONMENT`), and a test
compares the two interfaces so that a new `Supervisor` method cannot be forgotten.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from t3tui.model.checkin import CheckIn, CheckInVerdict
from t3tui.model.config import DetectorConfig
from t3tui.model.findings import rank_findings
from t3tui.model.provider_record import NativeRef, ProtocolLog, ProviderRecord
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
    task = row.task
    return replace(
        row,
        id=qualify(env, row.id),
        parent_id=qualify(env, row.parent_id) if row.parent_id is not None else None,
        children=tuple(qualify(env, c) for c in row.children),
        findings=tuple(replace(f, thread_id=qualify(env, f.thread_id)) for f in row.findings),
        # the parent is found by this id (forward, dispose): it must name the parent's row
        task=replace(task, parent_thread_id=qualify(env, task.parent_thread_id))
        if task is not None else None,
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

    # What one supervisor has and this one has not, and why (tests compare the interfaces).
    PER_ENVIRONMENT = {
        "apply_shell": "a shell item belongs to one server's stream: each environment's "
                       "source feeds its own supervisor",
        **dict.fromkeys(("watching", "watch_cap", "set_watch_cap"),
                        "each environment's session holds its own streams within its own cap "
                        "(status --env gives each environment's `watching`)"),
        "synchronized": "the several environments' view leaves out those down (`merge_views`): "
                        "the app takes a full view on their connections' changes",
    }
    changes = staticmethod(Supervisor.changes)

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

    def row(self, thread_id: str, now: datetime) -> ThreadRow | None:
        """`thread_id` qualified, as every id this class takes and gives."""
        env, raw = unqualify(thread_id)
        supervisor = self.supervisors.get(env)
        row = supervisor.row(raw, now) if supervisor is not None else None
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

    # -- the rest of `Supervisor`'s interface: by the thread's environment, or over all --

    def _of(self, qualified: str) -> tuple[Supervisor, str]:
        env, thread_id = unqualify(qualified)
        supervisor = self.supervisors.get(env)
        if supervisor is None:
            raise KeyError(f"no environment named {env!r}")
        return supervisor, thread_id

    @property
    def config(self) -> DetectorConfig:
        """The detector settings (every environment's source is given the same)."""
        return next(iter(self.supervisors.values())).config

    @property
    def incremental(self) -> bool:
        return all(s.incremental for s in self.supervisors.values())

    @property
    def shell_synchronized(self) -> bool:
        """Every environment that is connected has synchronized its shell."""
        down = self._down()
        return all(s.shell_synchronized for n, s in self.supervisors.items() if n not in down)

    def apply_thread(self, thread_id: str, item: Any) -> None:
        supervisor, raw = self._of(thread_id)
        supervisor.apply_thread(raw, item)

    def forget_thread(self, thread_id: str) -> None:
        supervisor, raw = self._of(thread_id)
        supervisor.forget_thread(raw)

    def mark_stale(self) -> None:
        for supervisor in self.supervisors.values():
            supervisor.mark_stale()

    def cursor_thread(self, thread_id: str) -> int | None:
        supervisor, raw = self._of(thread_id)
        return supervisor.cursor_thread(raw)

    def thread_synchronized(self, thread_id: str) -> bool:
        supervisor, raw = self._of(thread_id)
        return supervisor.thread_synchronized(raw)

    def threads_of_interest(self) -> frozenset[str]:
        return frozenset(qualify(n, t) for n, s in self.supervisors.items()
                         for t in s.threads_of_interest())

    def record_checkin(self, checkin: CheckIn) -> None:
        supervisor, raw = self._of(checkin.thread_id)
        supervisor.record_checkin(replace(checkin, thread_id=raw))

    def checkin_rejected(self, thread_id: str, message: str) -> None:
        supervisor, raw = self._of(thread_id)
        supervisor.checkin_rejected(raw, message)

    def checkin_verdict(self, thread_id: str, now: datetime) -> CheckInVerdict | None:
        supervisor, raw = self._of(thread_id)
        verdict = supervisor.checkin_verdict(raw, now)
        return replace(verdict, thread_id=thread_id) if verdict is not None else None

    def has_message(self, thread_id: str, message_id: str) -> bool:
        supervisor, raw = self._of(thread_id)
        return supervisor.has_message(raw, message_id)

    def forwards(self, thread_id: str) -> dict[str, datetime | None]:
        supervisor, raw = self._of(thread_id)
        return supervisor.forwards(raw)

    def woken_runs(self, thread_id: str) -> dict[str, frozenset[str]]:
        supervisor, raw = self._of(thread_id)
        return supervisor.woken_runs(raw)

    def record_interrupt(self, thread_id: str, run_id: str, at: datetime) -> None:
        supervisor, raw = self._of(thread_id)
        supervisor.record_interrupt(raw, run_id, at)

    def native_threads(self) -> dict[str, NativeRef]:
        return {qualify(n, t): ref for n, s in self.supervisors.items()
                for t, ref in s.native_threads().items()}

    def set_provider_record(self, thread_id: str, record: ProviderRecord | None) -> None:
        supervisor, raw = self._of(thread_id)
        supervisor.set_provider_record(raw, record)

    def provider_record(self, thread_id: str) -> ProviderRecord | None:
        supervisor, raw = self._of(thread_id)
        return supervisor.provider_record(raw)

    def set_protocol_log(self, thread_id: str, log: ProtocolLog | None) -> None:
        supervisor, raw = self._of(thread_id)
        supervisor.set_protocol_log(raw, log)

    def protocol_log(self, thread_id: str) -> ProtocolLog | None:
        supervisor, raw = self._of(thread_id)
        return supervisor.protocol_log(raw)
