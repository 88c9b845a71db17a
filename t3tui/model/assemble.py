"""Build rows and views from the index: tree order, contexts, detectors, states."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import fields
from datetime import UTC, datetime
from typing import Any

from t3tui.model.checkin import CheckIn, CheckInVerdict
from t3tui.model.config import DetectorConfig
from t3tui.model.context import Detach, ThreadContext, detaches_of
from t3tui.model.deadlines import Collect, note
from t3tui.model.detectors.rules import TASK_ROW, planned, run_rules
from t3tui.model.facts import OwnFacts, TaskFacts
from t3tui.model.findings import Finding, rank_findings
from t3tui.model.index import MAX_DEPTH, Record, TreeIndex
from t3tui.model.provider_record import ProtocolLog, ProviderRecord
from t3tui.model.rowcache import RowCache
from t3tui.model.rows import STATES, ThreadRow
from t3tui.model.states import OWN_READS, Derived, derive

_EPOCH = datetime.min.replace(tzinfo=UTC)
# The facts that decide whether a thread is shown (`visible`): when an event changed one of
# these its row is derived afresh; any other change of its own facts patches the kept row
# (`patch_row`: the tree around it is the same).
SHAPE_FACTS = frozenset({"visible", "has_record"})
# A context's parts kept with a row for its patches: (blocked on, busy children, orphaned
# children, undelivered children); most rows share the empty one.
Parts = tuple[tuple[TaskFacts, ...], int, int, int]
NO_PARTS: Parts = ((), 0, 0, 0)
# the row fields `_own_values` gives, in its order
OWN_FIELDS = ("title", "state", "state_reason", "state_since", "settled", "run_status",
              "activity_run_status", "active_run_id", "run_started_at", "provider", "model",
              "creation_source", "location", "pending_request", "latest_message",
              "last_activity_at", "overlays", "findings", "subscribed")
VerdictFn = Callable[[str, datetime], "CheckInVerdict | None"]
_ROW_FIELDS = tuple(f.name for f in fields(ThreadRow))
_CONTEXT_FIELDS = tuple(f.name for f in fields(ThreadContext))


class Assembler:
    """One pass over the index at one `now`; memoizes per-thread work within the pass."""

    def __init__(self, index: TreeIndex, config: DetectorConfig, now: datetime,
                 checkins: dict[str, CheckIn], verdict: VerdictFn,
                 memo: dict[str, tuple[str, datetime]], shell_synced: bool,
                 records: dict[str, ProviderRecord] | None = None,
                 cache: RowCache | None = None,
                 logs: dict[str, ProtocolLog] | None = None,
                 interrupts: dict[str, tuple[str, datetime]] | None = None) -> None:
        self.ix, self.config, self.now = index, config, now
        self.records = records or {}
        self.logs = logs or {}
        self.checkins, self.verdict, self.memo = checkins, verdict, memo
        self.shell_synced = shell_synced
        self.cache = cache or RowCache()
        self.interrupts = interrupts or {}
        self._busy: dict[str, bool] = {}
        self._kids: dict[str, list[str]] = {}
        self._tasks: dict[str, TaskFacts | None] = {}
        self._derived: dict[str, tuple[Derived, list[Finding], ThreadContext, datetime | None]] = {}
        self.keep_parts = False  # rows keep their context parts (`kept_parts`): a small pass

    # -- visibility and order --

    def visible(self, thread_id: str) -> bool:
        """Shown: a live (not archived/deleted) thread, or a task-row placeholder under one."""
        ix = self.ix
        records, facts = ix.records, ix.facts
        current: str | None = thread_id
        for _ in range(MAX_DEPTH):
            if current is None or current not in records:
                return False
            # (the kept facts read directly: asked for every thread of a tree, twice)
            own = facts.get(current) or ix.own(current)
            if own.has_record:
                return own.visible
            task = ix.child_task.get(current)
            current = ix.task_parent.get(task) if task else None
        return False

    def _order_key(self, thread_id: str) -> tuple[datetime, str]:
        own = self.ix.own(thread_id)
        created = own.created_at
        if created is None and (task := self.task_of(thread_id)) is not None:
            created = task.started_at
        return (created or _EPOCH, thread_id)

    def visible_children(self, thread_id: str) -> Sequence[str]:
        if thread_id not in self.ix.children:
            return ()  # a leaf: most threads of a big tree
        kids = self._kids.get(thread_id)  # the tree does not change within one pass
        if kids is None:
            kids = [c for c in self.ix.children.get(thread_id, ()) if self.visible(c)]
            kids = self._kids[thread_id] = self._in_order(kids)
        return kids

    def _in_order(self, ids: Iterable[str]) -> list[str]:
        """`ids` sorted by `_order_key`, the kept facts read directly (a tree sorts 10,000)."""
        facts = self.ix.facts
        keyed = [(own.created_at, t) if (own := facts.get(t)) is not None
                 and own.created_at is not None else self._order_key(t) for t in ids]
        return [t for _, t in sorted(keyed)]

    def tree(self) -> list[tuple[str, int]]:
        """(thread id, depth) in tree order; orphans and cycle members end up at top level."""
        ix = self.ix
        records, children, facts = ix.records, ix.children, ix.facts
        # whether a thread is shown read from its kept facts, as `visible` would, for every
        # thread of a tree; `visible` for those with no facts of a record of their own
        visible: list[str] = []
        for t in records:
            if (own := facts.get(t)) is None or not own.has_record:
                if self.visible(t):
                    visible.append(t)
            elif own.visible:
                visible.append(t)
        shown = set(visible)
        roots = [t for t in visible if (parent := records[t].parent) is None or parent not in shown]
        out: list[tuple[str, int]] = []
        seen: set[str] = set()

        def walk(starts: list[str]) -> None:
            # depth first from each of `starts` in turn: one stack for them all (a root is
            # reached only once every thread below the one before it is out)
            stack = [(t, 0) for t in reversed(starts)]
            while stack:
                cur, d = stack.pop()
                if cur in seen:
                    continue
                seen.add(cur)
                out.append((cur, d))
                if d < MAX_DEPTH and cur in children:  # (a leaf: most of a big tree)
                    stack.extend((k, d + 1) for k in reversed(self.visible_children(cur)))

        walk(self._in_order(roots))
        walk(self._in_order(t for t in visible if t not in seen))
        return out

    # -- cross-thread facts --

    def task_of(self, thread_id: str) -> TaskFacts | None:
        """The thread's task row in its parent (None: not a delegated child), looked up once
        a pass (a patch's row and its context both ask)."""
        try:
            return self._tasks[thread_id]
        except KeyError:
            task = self._tasks[thread_id] = self._task_of(thread_id)
            return task

    def _task_of(self, thread_id: str) -> TaskFacts | None:
        task_id = self.ix.child_task.get(thread_id)
        parent = self.ix.task_parent.get(task_id) if task_id else None
        if parent is None or parent not in self.ix.records:
            return None
        return self.ix.own(parent).task_index.get(task_id)

    def busy(self, thread_id: str, depth: int = 0) -> bool:
        """Live work anywhere in this thread's subtree."""
        if thread_id in self._busy:
            return self._busy[thread_id]
        if (kept := self.cache.peek(thread_id, self.now)) is not None:
            return kept.busy
        self._busy[thread_id] = False  # cycle guard
        own = self.ix.own(thread_id)
        if own.has_record:
            result = own.own_active or own.status in ("queued", "preparing")
        else:
            task = self.task_of(thread_id)
            result = task is not None and not task.terminal
        if not result and depth < MAX_DEPTH and thread_id in self.ix.children:  # (not a leaf)
            result = any(self.busy(c, depth + 1) for c in self.visible_children(thread_id))
        self._busy[thread_id] = result
        return result

    def orphaned(self, child: str, parent: OwnFacts) -> bool:
        """The parent will never be told about this child: its delivery was disposed, or the
        parent run that spawned it has a stopped/disposed cohort."""
        task = self.task_of(child)
        if task is None:
            return False
        return task.delivery == "disposed" or parent.cohorts.get(task.run_id or "", "open") != "open"

    def context(self, thread_id: str, kept: Parts | None = None) -> ThreadContext:
        """Everything the rules and the state read of a thread; with `kept`, the parts built
        from the tree and from own facts that did not change are the kept row's (a patch)."""
        ix = self.ix
        own = ix.own(thread_id)
        rec = ix.records[thread_id]
        parent = ix.own(rec.parent) if rec.parent and rec.parent in ix.records else None
        checkin = self.checkins.get(thread_id)
        if checkin is not None:
            note(checkin.deadline)
        if kept is not None:
            blocked_on, busy_children, orphaned_children, undelivered_children = kept
            detaches: tuple[Detach, ...] = ()
        elif not own.tasks and not own.run_session_ids and thread_id not in ix.children:
            # (a leaf with no task row and no session, most of a big tree: `_parts`'s answer)
            blocked_on, busy_children, orphaned_children, undelivered_children = NO_PARTS
            detaches = ()
        else:
            blocked_on, busy_children, orphaned_children, undelivered_children, detaches = \
                self._parts(thread_id, own)
        # without the frozen dataclass's `__init__` (a context per thread of a first tree),
        # filled in field order from an iterator, so that it shares its keys as the
        # dataclass's does (tests/model/test_facts_built.py)
        ctx = object.__new__(ThreadContext)
        ctx.__dict__.update(zip(_CONTEXT_FIELDS, (
            own, parent, self.task_of(thread_id), blocked_on, busy_children,
            undelivered_children, detaches, checkin,
            self.verdict(thread_id, self.now) if checkin else None, ix.task_known,
            self.records.get(thread_id), self.logs.get(thread_id),
            self.interrupts.get(thread_id), orphaned_children), strict=True))
        return ctx

    def _parts(self, thread_id: str, own: OwnFacts) -> tuple[Any, ...]:
        """(blocked on, busy children, orphaned children, undelivered children, detaches):
        the context's parts built from the tree and from the own facts CONTEXT_SOURCES names."""
        ix = self.ix
        kids = self.visible_children(thread_id)
        blocked = []
        for task in own.tasks:
            if task.wait_result(self.now) != "open" or task.run_id != own.active_run_id:
                continue
            child = task.child_thread_id
            if child and child in ix.records and ix.own(child).has_record:
                if self.busy(child):
                    blocked.append(task)
            elif not task.terminal:
                blocked.append(task)
        blocked.sort(key=lambda t: (t.started_at or _EPOCH, t.task_id))
        # (a leaf with no tasks and no session, most threads of a big tree: no scans)
        busy = [k for k in kids if self.busy(k)] if kids else kids
        return (
            tuple(blocked),
            len(busy),
            sum(1 for k in busy if self.orphaned(k, own)) if busy else 0,
            sum(1 for t in own.tasks if t.terminal and t.delivery in ("pending", "claimed"))
            if own.tasks else 0,
            detaches_of(self.ix, own) if own.run_session_ids else (),
        )

    def kept_parts(self, thread_id: str, patched: Parts | None = None) -> Parts | None:
        """The parts of this pass's context of a thread a later patch may reuse (`context`);
        None when it names a detach (a sharer's title is read afresh, never kept).
        `patched`: the parts a patch that built no context was given (still theirs)."""
        got = self._derived.get(thread_id)
        if got is None:
            return patched
        ctx = got[2]
        if ctx.detaches:
            return None
        parts = (ctx.blocked_on, ctx.busy_children, ctx.orphaned_children,
                 ctx.undelivered_children)
        return NO_PARTS if parts == NO_PARTS else parts

    # -- derivation --

    def derived(self, thread_id: str, changed: Collection[str] | None = None,
                kept: Parts | None = None) -> tuple[Derived, list[Finding], ThreadContext]:
        """State, ranked findings and context of a thread at the pass's `now`. `changed`:
        the own facts that changed since a derivation that found nothing (a patch); only the
        rules reading one of them run (`detectors/rules.py`). `kept`: see `context`."""
        cached = self._derived.get(thread_id)
        if cached is not None:
            note(cached[3])  # whoever asks again depends on the same moments
            return cached[:3]
        with Collect() as moments:
            ctx = self.context(thread_id, kept)
            findings = rank_findings(run_rules(ctx, self.config, self.now, changed))
            result = derive(ctx, findings)
        self._derived[thread_id] = (result, findings, ctx, moments.earliest)
        return result, findings, ctx

    def state_of(self, thread_id: str) -> str:
        """A child's state, as its parent's counts read it: kept, or derived now."""
        kept = self.cache.peek(thread_id, self.now)
        return kept.row.state if kept is not None else self.derived(thread_id)[0].state

    def _state(self, thread_id: str, result: Derived, rec: Record) -> tuple[datetime, tuple[str, ...]]:
        """(since, overlays) of a row: since when its state holds (kept across derivations
        while the data does not say), and the stale overlay of an unsynchronized stream."""
        since = result.since
        memo = self.memo.get(thread_id)
        if since is None:
            since = memo[1] if memo and memo[0] == result.state else self.now
        self.memo[thread_id] = (result.state, since)
        return since, self.overlays(thread_id, result.overlays, rec)

    def overlays(self, thread_id: str, derived: tuple[str, ...],
                 rec: Record | None = None) -> tuple[str, ...]:
        """A row's overlays: its state's, and `stale` while its stream is not synchronized."""
        rec = rec or self.ix.records[thread_id]
        if not self.shell_synced or (rec.proj is not None and not rec.synced):
            return (*derived, "stale")
        return derived

    def _own_values(self, thread_id: str, task: TaskFacts | None,
                    changed: Collection[str] | None = None,
                    kept: Parts | None = None,
                    got: tuple[Derived, list[Finding], ThreadContext] | None = None
                    ) -> tuple[Any, ...]:
        """The fields of a row that come from the thread's own facts and its state, in the
        order of `OWN_FIELDS` (a tuple: `row` passes them on without a dict of them).
        `got`: `derived`'s answer, when the caller already has it."""
        result, findings, ctx = got or self.derived(thread_id, changed, kept)
        own, rec = ctx.own, self.ix.records[thread_id]
        since, overlays = self._state(thread_id, result, rec)
        return (
            own.title if own.has_record else ((task.title if task else None) or thread_id),
            result.state, result.reason, since, own.settled, own.status, own.activity,
            own.active_run_id, own.run_started_at, own.provider, own.model,
            own.creation_source,
            (rec.location if rec.shell else "active") if own.has_record else "unknown",
            own.pending, own.latest_message, own.last_activity_at, overlays, tuple(findings),
            own.subscribed)

    def patch_row(self, old: ThreadRow, changed: Collection[str],
                  kept: Parts | None = None) -> ThreadRow:
        """`row()` of a thread whose own facts (or, `TASK_ROW` in `changed`, its task row)
        changed but not whether it is shown: the rules, the state and the fields from its
        own facts are derived again; the parts that come from the tree (children and their
        counts, depth, parent) are the kept row's, which the caller has checked still hold.
        The kept row had no finding: only the rules reading one of the `changed` facts run
        again. `kept`: the kept row's context parts, when none of their sources changed."""
        task = self.task_of(old.id)
        new = object.__new__(ThreadRow)
        new.__dict__.update(old.__dict__)
        if kept is not None and TASK_ROW not in changed and OWN_READS.isdisjoint(changed) \
                and (own := self.ix.own(old.id)).has_record \
                and not planned(own, task, changed, self.records.get(old.id) is not None):
            # no rule to run and nothing the state reads moved (a preview, a shell time):
            # the state, its reason and time, and the findings (none) are the kept row's
            new.__dict__.update(self._shown_values(old))
            return new
        new.__dict__.update(zip(OWN_FIELDS, self._own_values(old.id, task, changed, kept),
                                strict=True))
        if TASK_ROW in changed:
            origin, info = self._task_values(task, self.derived(old.id)[2])
            new.__dict__.update(origin=origin, task=info)
        return new

    def _shown_values(self, old: ThreadRow) -> dict[str, Any]:
        """The fields of a kept row that come from its own facts alone (not its state)."""
        own, rec = self.ix.own(old.id), self.ix.records[old.id]
        self.memo[old.id] = (old.state, old.state_since)  # what `_state` would keep
        return {
            "title": own.title, "settled": own.settled, "run_status": own.status,
            "activity_run_status": own.activity, "active_run_id": own.active_run_id,
            "run_started_at": own.run_started_at, "provider": own.provider,
            "model": own.model, "creation_source": own.creation_source,
            "location": rec.location if rec.shell else "active",
            "pending_request": own.pending, "latest_message": own.latest_message,
            "last_activity_at": own.last_activity_at, "subscribed": own.subscribed,
            "overlays": self.overlays(old.id, tuple(o for o in old.overlays if o != "stale"),
                                      rec)}

    def _task_values(self, task: TaskFacts | None, ctx: ThreadContext) -> tuple[Any, Any]:
        """(origin, task) of a row: the fields that come from its task row in its parent."""
        if task is None:
            return None, None
        return task.origin, task.as_info(
            self.now, ctx.parent.cohorts.get(task.run_id or "") if ctx.parent is not None else None)

    def row(self, thread_id: str, depth: int) -> ThreadRow:
        got = self.derived(thread_id)
        ctx = got[2]
        rec = self.ix.records[thread_id]
        kids = self.visible_children(thread_id)
        if kids:
            counts = Counter(self.state_of(k) for k in kids)
            child_counts = {s: counts[s] for s in STATES if counts.get(s)}
        else:
            child_counts = {}  # a leaf: most rows of a big tree
        task = ctx.task
        parent = rec.parent
        orphan = parent is not None and not self.visible(parent)
        origin, info = self._task_values(task, ctx)
        (title, state, reason, since, settled, run_status, activity, active_run_id,
         run_started_at, provider, model, creation_source, location, pending, latest_message,
         last_activity_at, overlays, findings, subscribed) = self._own_values(thread_id, task,
                                                                              got=got)
        # without the frozen dataclass's `__init__` (a row per thread of a first tree), in
        # field order from an iterator: a dict filled from another dict at once would hold
        # its own keys (832 bytes a row, not 288; tests/model/test_facts_built.py)
        row = object.__new__(ThreadRow)
        row.__dict__.update(zip(_ROW_FIELDS, (
            thread_id, title, parent, depth, tuple(kids), state, reason, since, settled,
            run_status, activity, active_run_id, run_started_at, provider, model, origin,
            creation_source, location, orphan, info, pending, latest_message,
            last_activity_at, overlays, child_counts, findings, subscribed), strict=True))
        return row
