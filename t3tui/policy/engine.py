"""One server's policies at work: occurrences, decisions, runs in flight and the journal.

A front end feeds it (`rows_changed` with what `Supervisor.changed_rows` gave, then `tick`) and
shows what it `emit`s: each decision when taken, and each run again once its steps are done
(taken, then its outcome: two facts). A dry run's decision is emitted once, with its plan: its
"would ..." said twice read as two plans.
Runs go in tasks of their own, one at a time per thread (a thread with a run in flight is not
decided on), so a slow confirmation never holds up the stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta

from t3tui.actions import Clock, Port
from t3tui.model import ThreadRow
from t3tui.model.findings import Finding
from t3tui.policy.acted import ActedLog
from t3tui.policy.decide import Situation, decide
from t3tui.policy.journal import Decision, Journal
from t3tui.policy.occurrences import Occurrences, Seen
from t3tui.policy.run import Records, execute
from t3tui.policy.spec import Policy, PolicySet
from t3tui.policy.switch import Switch
from t3tui.policy.tree import Tree

CONFIRM_TIMEOUT_S = 20.0


def _same_findings(held: tuple[Finding, ...], findings: tuple[Finding, ...]) -> bool:
    """The same findings (kind and rule, in their ranked order), whatever their words say
    now; a new order of the same ones reads as news, which costs one evaluation more."""
    return len(held) == len(findings) and all(
        a.rule == b.rule and a.kind == b.kind for a, b in zip(held, findings, strict=True))


class Engine:
    def __init__(self, policies: PolicySet, *, clock: Clock, emit: Callable[[Decision], None],
                 dry_run: bool = False, timeout: float = CONFIRM_TIMEOUT_S,
                 records: Records | None = None, on: bool = True,
                 acted_log: ActedLog | None = None) -> None:
        self.policies = policies
        self.clock, self.emit, self.dry_run = clock, emit, dry_run
        self.timeout, self.records = timeout, records
        self.switch = Switch(on, "--act" if on else "")
        self.journal = Journal()
        self.occurrences = Occurrences()
        self.user_acted: dict[str, datetime] = {}
        self.acted_log = acted_log  # the user's actions from other t3tui processes
        self._findings: dict[str, tuple[Finding, ...]] = {}
        self._titles: dict[str, str] = {}
        self.tree = Tree()  # children and states: a busy child explains a quiet parent
        self._busy: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        # Each evaluation, counted, and the occurrences it judged (those a policy is about):
        # what tells "looked again and did nothing" from "has not looked yet".
        self.looks = 0
        self.looked: tuple[Seen, ...] = ()

    def start(self, at: datetime) -> None:
        """The streams were synchronized for the first time at `at`."""
        self.occurrences.start(at)

    def seed(self, rows: Iterable[ThreadRow]) -> None:
        """Every row of a whole view (the baseline)."""
        self.rows_changed({row.id: row for row in rows})

    def rows_changed(self, changed: Mapping[str, ThreadRow | None]) -> bool:
        """Take what changed; True when a finding appeared or cleared (news to judge), not
        when only a finding's words moved on (its age)."""
        self.tree.update(changed)
        news = False
        for thread_id, row in changed.items():
            held = self._findings.get(thread_id, ())
            if row is None or not row.findings:
                news = news or bool(held)
                self._findings.pop(thread_id, None)
            else:
                findings = tuple(row.findings)
                news = news or not _same_findings(held, findings)
                self._findings[thread_id] = findings
            if row is not None:
                self._titles[thread_id] = row.title
        return news

    def forget_except(self, shown: Mapping[str, object]) -> bool:
        """A whole view: threads no longer shown have no findings. True when a thread with
        findings was forgotten (news to judge, as in `rows_changed`)."""
        self.tree.forget_except(shown)
        gone = [t for t in self._findings if t not in shown]
        for thread_id in gone:
            del self._findings[thread_id]
        return bool(gone)

    def acted(self, thread_id: str, at: datetime) -> None:
        """The user acted on this thread from t3tui (a key, a headless command)."""
        if at > self.user_acted.get(thread_id, at - timedelta(seconds=1)):
            self.user_acted[thread_id] = at

    def tick(self, port: Port, now: datetime, *, live: bool, synchronized: bool,
             thread_synced: Callable[[str], bool] = lambda _t: True,
             replay: bool = False, fresh: bool = True) -> list[Decision]:
        """One look. `fresh=False`: the front end was itself paused just now (`Resume`)."""
        if not self.switch.on:
            self.looked = ()
            return []
        if self.acted_log is not None:
            for thread_id, at in self.acted_log.read():
                self.acted(thread_id, at)
        findings = [f for fs in self._findings.values() for f in fs]
        seen = [s for s in self.occurrences.update(findings, now, thread_synced)
                if s.thread_id not in self._busy]
        self.looks += 1
        self.looked = tuple(s for s in seen
                            if any(p.matches(s.finding) for p in self.policies.policies))
        situation = Situation(live, synchronized, replay, self.dry_run, fresh)
        decisions = decide(self.policies, seen, now, situation, self.user_acted, self.journal,
                           self._titles, self.tree.busy_below)
        for decision in decisions:
            if decision.verdict != "dry-run":  # a plan is said once, when it is made (`_run`)
                self.emit(decision)
            if decision.verdict != "skip":
                self._busy.add(decision.thread_id)
                policy = self.policies.policies[decision.policy - 1]
                task = asyncio.create_task(self._run(port, decision, policy),
                                           name=f"t3tui-policy-{decision.policy}")
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        return decisions

    async def _run(self, port: Port, decision: Decision, policy: Policy) -> None:
        try:
            steps = await execute(port, decision, policy, clock=self.clock,
                                  timeout=self.timeout, records=self.records)
            self.emit(self.journal.finish(decision, steps))
        finally:
            self._busy.discard(decision.thread_id)

    @property
    def running(self) -> int:
        return len(self._tasks)

    async def idle(self) -> None:
        """Wait for every run in flight (a caller that is about to stop)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)
