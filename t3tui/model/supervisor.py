"""The supervisor: a pure reducer from shell/thread stream items to rows and findings."""

from __future__ import annotations

import heapq
from datetime import datetime
from typing import Any

from t3tui.model.assemble import Assembler
from t3tui.model.changes import Change, changes
from t3tui.model.checkin import CheckIn, CheckInVerdict, checkin_verdict
from t3tui.model.config import DetectorConfig
from t3tui.model.deadlines import Collect
from t3tui.model.findings import rank_findings
from t3tui.model.index import MAX_DEPTH, Record, TreeIndex
from t3tui.model.projection import Projection, apply_event, check_event, from_snapshot
from t3tui.model.provider_record import NativeRef, ProtocolLog, ProviderRecord
from t3tui.model.rowcache import VOLATILE_S, Entry, RowCache, same_row, summary
from t3tui.model.rows import STATES, SupervisorView, ThreadRow
from t3tui.model.wire import ModelInputError, as_wire, obj, objs, sequence_of, string


class Supervisor:
    """Keeps the thread tree and derives states and findings (see docs/ARCHITECTURE.md).

    Feed it stream items with `apply_shell` / `apply_thread`; ask for `view(now)`. Bad items
    raise `ModelInputError` and leave the state unchanged.
    """

    def __init__(self, config: DetectorConfig | None = None, *, incremental: bool = True) -> None:
        self.config = config or DetectorConfig()
        # incremental=False derives every row afresh on every call (the reference the
        # incremental path is tested against, tests/model/test_incremental.py)
        self.incremental = incremental
        self._cache = RowCache()
        self._unreported: set[str] = set()
        self._interest: tuple[int, dict[str, bool], frozenset[str]] | None = None
        self._ix = TreeIndex()
        self._shell_cursor: int | None = None
        self._shell_synced = False
        self._checkins: dict[str, CheckIn] = {}
        self._rejected: dict[str, str] = {}
        self._since_memo: dict[str, tuple[str, datetime]] = {}
        self._records: dict[str, ProviderRecord] = {}
        self._logs: dict[str, ProtocolLog] = {}
        self._interrupts: dict[str, tuple[str, datetime]] = {}

    # -- shell stream --

    def apply_shell(self, item: Any) -> None:
        """Apply one shell stream item (snapshot, synchronized, thread/project updates)."""
        w = as_wire(item, "shell item")
        kind = w.get("kind")
        if kind == "snapshot":
            self._shell_snapshot(w)
            return
        if kind == "synchronized":
            if not self._shell_synced:
                self._shell_synced = True
                self._ix.dirty.update(self._ix.records)  # every row loses its `stale` overlay
            return
        if "sequence" not in w:
            return  # an unknown kind without a cursor position: nothing to apply
        seq = sequence_of(w)
        if self._shell_cursor is not None and seq <= self._shell_cursor:
            return
        if kind == "thread.updated":
            thread = obj(w.get("thread"))
            thread_id = string(thread.get("id"))
            if thread_id is None:
                raise ModelInputError("shell item 'thread.updated': thread has no string `id`")
            self._set_shell(thread_id, thread, string(w.get("location")) or "active")
        elif kind == "thread.removed":
            thread_id = string(w.get("threadId"))
            if thread_id is None:
                raise ModelInputError("shell item 'thread.removed' has no string `threadId`")
            self._remove_shell(thread_id, string(w.get("location")))
        self._shell_cursor = seq

    def _shell_snapshot(self, w: dict[str, Any]) -> None:
        snap = w.get("snapshot")
        if not isinstance(snap, dict):
            raise ModelInputError("shell snapshot has no `snapshot` object")
        seq = sequence_of(snap, "snapshotSequence")
        rows: dict[str, tuple[dict[str, Any], str]] = {}
        for location, key in (("archive", "archivedThreads"), ("active", "threads")):
            for row in objs(snap.get(key)):
                if (thread_id := string(row.get("id"))) is not None:
                    rows[thread_id] = (row, location)
        for thread_id in [t for t, r in self._ix.records.items() if r.shell and t not in rows]:
            self._remove_shell(thread_id, None)
        for thread_id, (row, location) in rows.items():
            self._set_shell(thread_id, row, location)
        self._shell_cursor = seq

    def _set_shell(self, thread_id: str, row: dict[str, Any], location: str) -> None:
        rec = self._ix.record(thread_id)
        before = rec.shell
        rec.shell, rec.location = row, location
        self._ix.relink(thread_id)
        self._ix.touch(thread_id, with_children=True)
        if before is None or before.get("settledOverride") != row.get("settledOverride") \
                or before.get("archivedAt") != row.get("archivedAt"):
            self._ix.touch_sharers(rec)

    def _remove_shell(self, thread_id: str, location: str | None) -> None:
        rec = self._ix.records.get(thread_id)
        if rec is None or rec.shell is None or (location is not None and rec.location != location):
            return
        rec.shell = None
        self._ix.relink(thread_id)
        self._ix.touch(thread_id, with_children=True)
        self._ix.touch_sharers(rec)
        self._ix.collect(thread_id)

    # -- thread streams --

    def apply_thread(self, thread_id: str, item: Any) -> None:
        """Apply one item of `thread_id`'s stream (snapshot, synchronized, event)."""
        w = as_wire(item, "thread item")
        kind = w.get("kind")
        if kind == "synchronized":
            rec = self._ix.record(thread_id)
            if not rec.synced:
                rec.synced = True
                self._ix.dirty.add(thread_id)
            return
        if kind == "snapshot":
            projection = w.get("projection")
            if not isinstance(projection, dict):
                raise ModelInputError("thread snapshot has no `projection` object")
            seq = sequence_of(w, "snapshotSequence")
            rec = self._ix.record(thread_id)
            rec.proj = from_snapshot(projection, rec.proj)
            rec.cursor = seq
            self._reindex(rec)
            return
        if "sequence" not in w:
            return
        seq = sequence_of(w)
        rec = self._ix.records.get(thread_id)
        if rec is not None and rec.cursor is not None and seq <= rec.cursor:
            return
        if kind == "event":
            event = w.get("event")
            if not isinstance(event, dict):
                raise ModelInputError("thread item 'event' has no `event` object")
            check_event(event)
            rec = self._ix.record(thread_id)
            if rec.proj is None:
                rec.proj = Projection()
            touched = apply_event(rec.proj, event)
            self._after_event(rec, touched, obj(event.get("payload")))
        rec = self._ix.record(thread_id)
        rec.cursor = seq

    def _after_event(self, rec: Record, touched: str, payload: dict[str, Any]) -> None:
        ix = self._ix
        if touched == "thread":
            ix.relink(rec.id)
            ix.touch_sharers(rec)
        elif touched == "subagent":
            ix.index_task(rec.id, payload)
            rec.task_ids = rec.task_ids | {str(payload.get("id"))}
        elif touched == "session":
            ix.reindex_sessions(rec)
        elif touched == "detached":
            ix.reindex_detaches(rec)
        # a task row reaches its child through index_task (it touches that child only)
        ix.touch(rec.id, with_children=touched in ("run", "thread"))

    def _reindex(self, rec: Record) -> None:
        self._ix.relink(rec.id)
        self._ix.reindex_tasks(rec)
        self._ix.reindex_sessions(rec)
        self._ix.reindex_detaches(rec)
        self._ix.touch(rec.id, with_children=True)
        self._ix.touch_sharers(rec)

    def forget_thread(self, thread_id: str) -> None:
        """The client unsubscribed: drop the projection (the shell row stays)."""
        rec = self._ix.records.get(thread_id)
        if rec is None or rec.proj is None:
            return
        rec.proj, rec.cursor, rec.synced = None, None, False
        self._reindex(rec)
        self._ix.collect(thread_id)

    def mark_stale(self) -> None:
        """The connection dropped: every stream is stale until its next `synchronized`."""
        self._shell_synced = False
        for rec in self._ix.records.values():
            rec.synced = False
        self._ix.dirty.update(self._ix.records)

    # -- cursors and interest --

    @property
    def cursor_shell(self) -> int | None:
        return self._shell_cursor

    def cursor_thread(self, thread_id: str) -> int | None:
        rec = self._ix.records.get(thread_id)
        return rec.cursor if rec else None

    @property
    def shell_synchronized(self) -> bool:
        return self._shell_synced

    def thread_synchronized(self, thread_id: str) -> bool:
        rec = self._ix.records.get(thread_id)
        return bool(rec and rec.synced)

    def threads_of_interest(self) -> set[str]:
        """Threads to subscribe: every visible parent and every visible child.

        The client asks after every batch: the answer is kept, and recomputed only when parent
        links or task rows changed, or when a thread it looked at changed whether it is shown
        (O(threads changed since the last call), not O(families)).
        """
        ix = self._ix
        kept = self._interest
        changed, ix.refacted = ix.refacted, set()
        if self.incremental and kept is not None and kept[0] == ix.shape and all(
                self._shown(t) == shown for t in changed if (shown := kept[1].get(t)) is not None):
            return set(kept[2])
        out = set()
        looked: dict[str, bool] = {}

        def shown(thread_id: str) -> bool:
            if thread_id not in looked:
                looked[thread_id] = self._shown(thread_id)
            return looked[thread_id]

        for parent, kids in ix.children.items():
            for kid in kids:
                if shown(kid):
                    out.add(kid)
                    if shown(parent):
                        out.add(parent)
        # Threads holding task rows, from the task index: not a walk over every record.
        for parent in set(ix.task_parent.values()):
            if shown(parent):
                out.add(parent)
        self._interest = (ix.shape, looked, frozenset(out))
        return out

    def _shown(self, thread_id: str) -> bool:
        own = self._ix.own(thread_id)
        return own.visible if own.has_record else thread_id in self._ix.child_task

    def take_dirty(self) -> set[str]:
        """Thread ids whose row may have changed since the last call (structure or data):
        rows re-derived since, and rows still to re-derive with their ancestors."""
        out, self._unreported = self._unreported, set()
        for thread_id in self._ix.dirty:
            out.update(self._lineage(thread_id))
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
        """Re-derive every row whose inputs changed or whose moment came, deepest first, and
        the parents of those whose summary changed. Returns the pass's assembler."""
        asm = self._assembler(now)
        if not self.incremental:
            self._cache = asm.cache = RowCache()
            self._unreported.update(self._ix.dirty)
            self._ix.dirty = set()
            return asm
        pending, self._ix.dirty = self._ix.dirty, set()
        pending |= self._cache.due(now)
        work = [(-len(self._lineage(t)), t) for t in pending]
        heapq.heapify(work)
        while work:
            _, tid = heapq.heappop(work)
            pending.discard(tid)
            old = self._cache.drop(tid)
            new = self._derive(asm, tid)
            if summary(old) != summary(new):
                rec = self._ix.records.get(tid)
                for parent in {old.row.parent_id if old else None, rec.parent if rec else None}:
                    if parent is not None and parent not in pending:
                        pending.add(parent)
                        heapq.heappush(work, (-len(self._lineage(parent)), parent))
            if not same_row(old, new):
                self._unreported.add(tid)
        return asm

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
            depth = self._depth(asm, thread_id)
        with Collect() as moments:
            row = asm.row(thread_id, depth)
        until = moments.earliest
        volatile = bool(row.findings) or thread_id in self._checkins
        if volatile:
            until = min(until, asm.now + VOLATILE_S) if until else asm.now + VOLATILE_S
        entry = Entry(row, asm.now, until, volatile, asm.busy(thread_id),
                      asm._order_key(thread_id)[0])
        self._cache.store(thread_id, entry)
        return entry

    # -- check-ins --

    def record_checkin(self, checkin: CheckIn) -> None:
        """Track a check-in (one outstanding per thread; a new one replaces the old)."""
        self._checkins[checkin.thread_id] = checkin
        self._rejected.pop(checkin.thread_id, None)
        self._ix.touch(checkin.thread_id)

    def checkin_rejected(self, thread_id: str, message: str) -> None:
        """The server refused the check-in's command: its verdict becomes `busy`."""
        self._rejected[thread_id] = message
        self._ix.touch(thread_id)

    def checkin_verdict(self, thread_id: str, now: datetime) -> CheckInVerdict | None:
        checkin = self._checkins.get(thread_id)
        if checkin is None:
            return None
        rec = self._ix.records.get(thread_id)
        messages = rec.proj.messages.values() if rec and rec.proj else ()
        runs = rec.proj.runs.values() if rec and rec.proj else ()
        latest_visible = obj((rec.shell or {}).get("latestVisibleMessage")) if rec else {}
        return checkin_verdict(checkin, now=now, messages=messages, latest_visible=latest_visible,
                               rejected=self._rejected.get(thread_id), runs=runs)

    # -- the provider's own records (read by t3tui.proof, fed in here) --

    def native_threads(self) -> dict[str, NativeRef]:
        """Thread id -> the native id of its current provider thread, for every subscribed
        thread whose provider thread carries one (what to look up on the machine)."""
        out = {}
        for thread_id, rec in self._ix.records.items():
            if rec.proj is not None and (ref := self._ix.own(thread_id).native_thread) is not None:
                out[thread_id] = ref
        return out

    def set_provider_record(self, thread_id: str, record: ProviderRecord | None) -> None:
        """What the provider's own record says of this thread (None: forget it)."""
        if self._records.get(thread_id) == record:
            return
        if record is None:
            self._records.pop(thread_id, None)
        else:
            self._records[thread_id] = record
        if thread_id in self._ix.records:
            self._ix.touch(thread_id)

    def provider_record(self, thread_id: str) -> ProviderRecord | None:
        return self._records.get(thread_id)

    def set_protocol_log(self, thread_id: str, log: ProtocolLog | None) -> None:
        """What T3's protocol log holds for this thread (None: forget it)."""
        if self._logs.get(thread_id) == log:
            return
        if log is None:
            self._logs.pop(thread_id, None)
        else:
            self._logs[thread_id] = log
        if thread_id in self._ix.records:
            self._ix.touch(thread_id)

    def protocol_log(self, thread_id: str) -> ProtocolLog | None:
        return self._logs.get(thread_id)

    def has_message(self, thread_id: str, message_id: str) -> bool:
        """The thread's stream shows message `message_id` (a message we sent has landed)."""
        rec = self._ix.records.get(thread_id)
        return bool(rec and rec.proj and message_id in rec.proj.messages)

    # -- interrupts this client sent --

    def record_interrupt(self, thread_id: str, run_id: str, at: datetime) -> None:
        """The server accepted our `run.interrupt` for `run_id` at `at` (the caller's clock).

        Without a `run_interrupt_request` item on the wire, this is what tells the
        interrupt-not-landed rule that a stop was asked.
        """
        self._interrupts[thread_id] = (run_id, at)
        self._ix.touch(thread_id)

    # -- views --

    def _assembler(self, now: datetime) -> Assembler:
        return Assembler(self._ix, self.config, now, self._checkins, self.checkin_verdict,
                         self._since_memo, self._shell_synced, self._records,
                         self._cache, self._logs, self._interrupts)

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

    def view(self, now: datetime) -> SupervisorView:
        """Every shown thread in tree order, with counts and ranked findings. Rows whose
        inputs did not change and whose moment has not come are reused, not re-derived."""
        asm = self._settle(now)
        rows = tuple(self._kept(asm, tid, depth) for tid, depth in asm.tree())
        counts = dict.fromkeys(STATES, 0)
        for r in rows:
            counts[r.state] += 1
        findings = rank_findings([f for r in rows for f in r.findings])
        # forget since-memos of threads no longer shown (the memo must not grow without bound)
        shown = {r.id for r in rows}
        self._since_memo = {t: m for t, m in self._since_memo.items() if t in shown}
        synced = self._shell_synced and all(
            rec.synced for rec in self._ix.records.values() if rec.proj is not None
        )
        return SupervisorView(now=now, rows=rows, findings=tuple(findings), counts=counts,
                              synchronized=synced, by_id={r.id: r for r in rows})

    changes = staticmethod(changes)


__all__ = ["Change", "Supervisor"]
