"""Rows derived from the index, kept between calls and re-derived only when something changed.

The half of the supervisor that answers (`row`, `view`, `changed_rows`, `take_dirty`); the
other half (`supervisor.py`) applies stream items to the index. A row is re-derived when one of
its inputs changed (the index marks it), when the clock reaches a moment its derivation
compared against (`deadlines.note`, `RowCache.due`), or when a child's summary changed. When a
thread's own data changed but not whether it is shown (`assemble.SHAPE_FACTS`), the kept row
is patched: its own facts' fields, the rules and the state are derived again; the parts that
come from the tree (children, their counts, depth, parent) are kept, and so are the context's
parts none of whose facts changed. So is a row whose task row in its parent changed
(`TreeIndex.retask`): its task row and the rules reading it are derived again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from t3tui.model.assemble import NO_PARTS, SHAPE_FACTS, Assembler, Parts
from t3tui.model.checkin import CheckIn
from t3tui.model.deadlines import Collect
from t3tui.model.detectors.rules import CONTEXT_SOURCES, TASK_ROW, later
from t3tui.model.factpatch import changed_fields, moved_names
from t3tui.model.findings import rank_findings
from t3tui.model.index import MAX_DEPTH, TreeIndex
from t3tui.model.rowcache import VOLATILE_S, Entry, RowCache, same_row, summary
from t3tui.model.rows import STATES, SupervisorView, ThreadRow, Watching

# a pass that derived more rows than this is not kept for reuse (its memos would hold them)
_KEEP_PASS = 64
# a pass with more rows to derive than this (a first tree) keeps no context parts with them:
# a frame's rows do (their next patch reuses them), a whole tree's would cost memory for each
_KEEP_PARTS = 1024
# the own facts the context parts a patch may reuse are built from
_PARTS_FROM = frozenset().union(*CONTEXT_SOURCES.values())
# the own facts whether a thread is busy (`Assembler.busy`) and its order among its siblings
# (`Assembler._order_key`) are read from, besides its children (kept by a patch)
_SUMMARY_FROM = frozenset({"activity", "pending", "status", "created_at"})


class Derivation:
    """Row derivation over a `TreeIndex` (the base of `Supervisor`, which fills the index)."""

    incremental: bool
    _ix: TreeIndex
    _cache: RowCache
    _unreported: set[str]
    _since_memo: dict[str, tuple[str, datetime]]
    _checkins: dict[str, CheckIn]
    _shell_synced: bool
    _assembler: Callable[[datetime], Assembler]
    watching: Callable[[], Watching | None]
    # the last pass's assembler: asked again at the same `now` with nothing marked and no
    # moment due, the pass would find nothing to do (the screen and the client ask `row` for
    # several clean threads per batch)
    _last: Assembler | None = None

    def take_dirty(self) -> set[str]:
        """Thread ids whose row may have changed since the last call (structure or data):
        rows re-derived since, and rows still to re-derive with their ancestors."""
        out, self._unreported = self._unreported, set()
        for thread_id in (*self._ix.dirty, *self._ix.before, *self._ix.retask):
            out.update(self._lineage(thread_id))
        out.update(t for t in self._ix.restale if t in self._ix.records)
        return out

    def changed_rows(self, now: datetime) -> dict[str, ThreadRow | None]:
        """Rows that changed since the last call, derived at `now` (None: no longer shown).

        What a screen asks at its own cadence: the rows whose facts changed, the rows time
        changed (a dwell ended; rows with findings once a second), and the parents whose
        children's states changed. O(rows changed), never a scan of every thread.
        """
        self._settle(now)
        out, self._unreported = self._unreported, set()
        entries = self._cache.entries
        return {t: e.row if (e := entries.get(t)) is not None else None for t in out}

    def _lineage(self, thread_id: str) -> list[str]:
        out: list[str] = []
        current: str | None = thread_id
        while current is not None and len(out) < MAX_DEPTH and current not in out:
            out.append(current)
            rec = self._ix.records.get(current)
            current = rec.parent if rec else None
        return out

    def _settle(self, now: datetime) -> Assembler:
        """Re-derive (or patch) every row whose inputs changed or whose moment came, deepest
        first, and the parents of those whose summary changed. Returns the pass's assembler."""
        ix = self._ix
        last = self._last
        if last is not None and last.now == now and not ix.dirty and not ix.before \
                and not ix.restale and not ix.retask and self.incremental \
                and not self._cache.due_by(now):
            return last
        asm = self._last = self._assembler(now)
        before, ix.before = ix.before, {}
        moved, ix.moved = ix.moved, {}
        retask, ix.retask = ix.retask, set()
        if not self.incremental:
            self._cache = asm.cache = RowCache()
            self._unreported.update(ix.dirty, before, ix.restale, retask)
            ix.dirty, ix.restale = set(), set()
            return asm
        full, ix.dirty = ix.dirty, set()
        full |= self._cache.due(now)
        self._relabel(asm, full, before, retask)
        pending = full | before.keys() | retask
        asm.keep_parts = len(pending) <= _KEEP_PARTS
        # deepest first, by the length of the lineage: one list per length, each sorted once
        # (a heap of (depth, id) compared ids on every step: 10% of a first tree's pass)
        work: dict[int, list[str]] = {}
        records = ix.records
        for t in pending:
            # (a top-level thread's lineage is itself: most of a first tree's 10,000)
            at = 1 if (rec := records.get(t)) is None or rec.parent is None \
                else len(self._lineage(t))
            work.setdefault(at, []).append(t)
        for ids in work.values():
            ids.sort(reverse=True)
        depth = max(work, default=0)
        while depth > 0:
            ids = work.get(depth)
            if not ids:
                depth -= 1
                continue
            tid = ids.pop()
            pending.discard(tid)
            old = self._cache.drop(tid)
            new = None
            if tid not in full and old is not None:
                patches = moved.get(tid)
                new = self._patch(asm, tid, old, before.get(tid), tid in retask,
                                  None if patches is None else moved_names(patches))
            if new is None:
                new = self._derive(asm, tid)
            if old is None:  # (never derived or shown before: every row of a first tree)
                resummed = reported = new is not None
            else:
                resummed, reported = summary(old) != summary(new), not same_row(old, new)
            if resummed:
                rec = ix.records.get(tid)
                for parent in {old.row.parent_id if old else None, rec.parent if rec else None}:
                    if parent is None:
                        continue
                    full.add(parent)  # its children's counts change: not a patch
                    if parent not in pending:
                        pending.add(parent)
                        # (a former parent may stand deeper than this row: go back down)
                        at = len(self._lineage(parent))
                        work.setdefault(at, []).append(parent)
                        depth = max(depth, at)
            if reported:
                self._unreported.add(tid)
        if len(asm._derived) > _KEEP_PASS:
            self._last = None  # a big pass's memos are not worth keeping (a tree's worth)
        return asm

    def _relabel(self, asm: Assembler, full: set[str], before: dict, retask: set[str]) -> None:
        """Rows whose stream's synchronization changed, and nothing else: the kept row with
        the `stale` overlay added or lifted (the shell's `synchronized` after its snapshot
        no longer derives the whole tree a second time). A row with findings, or whose
        moment came, is derived afresh instead."""
        restale, self._ix.restale = self._ix.restale, set()
        entries = self._cache.entries
        for tid in restale:
            old = entries.get(tid)
            if tid in full or tid in before or tid in retask or old is None:
                continue  # derived or patched below, or never derived (nothing kept)
            if old.volatile or not old.holds(asm.now) or not asm.visible(tid):
                full.add(tid)
                continue
            overlays = asm.overlays(tid, tuple(o for o in old.row.overlays if o != "stale"))
            if overlays == old.row.overlays:
                continue
            row = object.__new__(ThreadRow)
            row.__dict__.update(old.row.__dict__, overlays=overlays)
            old.row = row
            self._unreported.add(tid)

    def _patch(self, asm: Assembler, thread_id: str, old: Entry, facts_before,
               retask: bool, names: tuple[str, ...] | None = None) -> Entry | None:
        """The kept row, patched, when only the thread's own data (`facts_before`: its facts
        when the row was derived) or its task row in its parent (`retask`) changed, not
        whether it is shown, and the row still holds at `now`; None when it must be derived
        afresh. `names`: the only facts that can differ from `facts_before` (its events'
        patches move no other), None when any can.

        Kept: children and their counts (a child's summary change, or a child added or gone,
        marks this row for a full derivation), depth and parent (a relink does too)."""
        if old.volatile or not old.holds(asm.now) or not asm.visible(thread_id):
            return None
        own = self._ix.own(thread_id)
        changed: list[str] = []
        if facts_before is not None and own is not facts_before:
            changed = changed_fields(facts_before, own, names)
            if not SHAPE_FACTS.isdisjoint(changed):
                return None
        if retask:
            if not own.has_record:
                return None  # a placeholder: its row is its task row (title, order, state)
            changed.append(TASK_ROW)
        if not changed:
            self._cache.store(thread_id, old)
            return old
        kept = None
        if _PARTS_FROM.isdisjoint(changed):
            kept = old.parts
            if kept is None and not own.tasks and not own.run_session_ids \
                    and thread_id not in self._ix.children:
                # a big pass (a first tree) kept no parts; a leaf with no task row and no
                # session had none (`Assembler.context`), and a patch moved none of that
                kept = NO_PARTS
        # (the rules a progress time moving later quiets are not run again: the kept row
        # found nothing, and their old moments stay in `until`)
        plan = later(facts_before, own, changed) if facts_before is not None else changed
        with Collect() as moments:
            row = asm.patch_row(old.row, plan, kept)
        # the kept parts of the row depend on the moments of the old derivation
        until = min(filter(None, (old.until, moments.earliest)), default=None)
        # (the order falls back to the task row's start when the thread has no creation time)
        same = _SUMMARY_FROM.isdisjoint(changed) and (
            TASK_ROW not in changed or own.created_at is not None)
        # (no check-in: its row is volatile)
        return self._keep(asm, thread_id, row, until, old if same else None, kept)

    def _depth(self, asm: Assembler, thread_id: str) -> int:
        depth, cur = 0, self._ix.records[thread_id].parent
        while cur is not None and asm.visible(cur) and depth < MAX_DEPTH:
            depth += 1
            cur = self._ix.records[cur].parent
        return depth

    def _derive(self, asm: Assembler, thread_id: str, depth: int | None = None) -> Entry | None:
        """Derive one row at the pass's `now` and keep it (None when it is not shown)."""
        if not asm.visible(thread_id):
            return None
        if depth is None:
            depth = self._depth(asm, thread_id) \
                if self._ix.records[thread_id].parent is not None else 0
        with Collect() as moments:
            row = asm.row(thread_id, depth)
        return self._keep(asm, thread_id, row, moments.earliest)

    def _keep(self, asm: Assembler, thread_id: str, row: ThreadRow,
              until: datetime | None, same: Entry | None = None,
              parts: Parts | None = None) -> Entry:
        """Keep a row derived (or patched) at the pass's `now`, valid until `until`; a row
        with findings or a check-in reads the clock, so it comes round once a second.
        `same`: a kept entry whose busy and order still hold (a patch that moved neither)."""
        volatile = bool(row.findings) or thread_id in self._checkins
        if volatile:
            until = min(until, asm.now + VOLATILE_S) if until else asm.now + VOLATILE_S
        busy, order = (same.busy, same.order) if same is not None else \
            (asm.busy(thread_id), asm._order_key(thread_id)[0])
        entry = Entry(row, asm.now, until, volatile, busy, order,
                      asm.kept_parts(thread_id, parts) if asm.keep_parts else None)
        self._cache.store(thread_id, entry)
        return entry

    def _kept(self, asm: Assembler, thread_id: str, depth: int) -> ThreadRow:
        entry = self._cache.entries.get(thread_id)
        if entry is None or not entry.serves(asm.now, depth):
            entry = self._derive(asm, thread_id, depth)
            assert entry is not None
        return entry.row

    def row(self, thread_id: str, now: datetime) -> ThreadRow | None:
        """One thread's row at `now` (None when it is not shown), without a full view."""
        asm = self._settle(now)
        if not asm.visible(thread_id):
            return None
        return self._kept(asm, thread_id, self._depth(asm, thread_id))

    def synchronized(self) -> bool:
        """What a view now says in `synchronized`: the shell and every watched thread are
        caught up with the server."""
        return self._shell_synced and all(
            rec.synced for rec in self._ix.records.values() if rec.proj is not None)

    def view(self, now: datetime) -> SupervisorView:
        """Every shown thread in tree order, with counts and ranked findings. Rows whose
        inputs did not change and whose moment has not come are reused, not re-derived."""
        asm = self._settle(now)
        entries = self._cache.entries  # (`_kept`'s look, inline: a call per row of a tree)
        rows = tuple(e.row if (e := entries.get(tid)) is not None and e.serves(now, depth)
                     else self._kept(asm, tid, depth) for tid, depth in asm.tree())
        counts = dict.fromkeys(STATES, 0)
        for r in rows:
            counts[r.state] += 1
        findings = rank_findings([f for r in rows for f in r.findings])
        # forget since-memos of threads no longer shown (the memo must not grow without bound)
        shown = {r.id for r in rows}
        memo = self._since_memo  # in place: the kept assembler holds it
        for gone in [t for t in memo if t not in shown]:
            del memo[gone]
        self._last = None  # its memos cover every shown thread: not worth their memory
        return SupervisorView(now=now, rows=rows, findings=tuple(findings), counts=counts,
                              synchronized=self.synchronized(), by_id={r.id: r for r in rows},
                              watching=self.watching())


__all__ = ["Derivation"]
