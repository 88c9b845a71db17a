"""The supervisor: a pure reducer from shell/thread stream items to rows and findings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from t3tui.model.assemble import Assembler
from t3tui.model.changes import Change, changes
from t3tui.model.checkin import CheckIn, CheckInVerdict, checkin_verdict, is_answer
from t3tui.model.config import DetectorConfig
from t3tui.model.derivation import Derivation
from t3tui.model.factpatch import EVENT_PATCHES, PARENT_READ, shell_patch
from t3tui.model.index import Record, TreeIndex
from t3tui.model.interest import Activity, families, watch_window_s
from t3tui.model.projection import Projection, apply_event, check_event, from_snapshot
from t3tui.model.provider_record import NativeRef, ProtocolLog, ProviderRecord
from t3tui.model.retention import retain
from t3tui.model.rowcache import RowCache
from t3tui.model.rows import Watching
from t3tui.model.wire import ModelInputError, as_wire, keyed, obj, objs, sequence_of, string


class Supervisor(Derivation):
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
        self.watch_cap = self.config.watch_cap
        self._activity = Activity(watch_window_s(self.config))
        self._watched: tuple[frozenset[str], frozenset[str]] | None = None
        self._watching: Watching | None = None

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
                self._ix.restale.update(self._ix.records)  # every row loses its `stale` overlay
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
            self._set_shell(thread_id, keyed(thread), string(w.get("location")) or "active")
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
        patch = shell_patch(before, row) if rec.location == location else None
        rec.shell, rec.location = row, location
        self._ix.relink(thread_id)
        # of a row that moved only what `shell_facts` patches, children read only the title
        renamed = patch is None or before is None or before.get("title") != row.get("title")
        self._ix.refresh(thread_id, with_children=renamed, patch=patch)
        if before is None or before.get("settledOverride") != row.get("settledOverride") \
                or before.get("archivedAt") != row.get("archivedAt"):
            self._ix.touch_sharers(rec)

    def _remove_shell(self, thread_id: str, location: str | None) -> None:
        rec = self._ix.records.get(thread_id)
        if rec is None or rec.shell is None or (location is not None and rec.location != location):
            return
        rec.shell = None
        self._ix.relink(thread_id)
        self._ix.touch(thread_id, with_children=True, own=True)
        self._ix.touch_sharers(rec)
        self._ix.collect(thread_id)

    # -- thread streams --

    def apply_thread(self, thread_id: str, item: Any) -> None:
        """Apply one item of `thread_id`'s stream (snapshot, synchronized, event)."""
        w = as_wire(item, "thread item")
        kind = w.get("kind")
        if kind == "event" and "sequence" in w:  # nearly every item: its path first
            seq = sequence_of(w)
            rec = self._ix.records.get(thread_id)
            if rec is not None and rec.cursor is not None and seq <= rec.cursor:
                return
            event = w.get("event")
            if not isinstance(event, dict):
                raise ModelInputError("thread item 'event' has no `event` object")
            check_event(event)
            if rec is None:
                rec = self._ix.record(thread_id)
            if rec.proj is None:  # its snapshot was lost: the thread is subscribed from now on
                rec.proj = Projection()
                self._ix.touch(thread_id, own=True)
            touched = apply_event(rec.proj, event)
            if touched == "message" or touched == "run":
                retain(rec.proj, self.config, self._pinned(thread_id))
            self._after_event(rec, touched, event.get("payload"))
            rec.cursor = seq
            return
        if kind == "synchronized":
            rec = self._ix.record(thread_id)
            if not rec.synced:
                rec.synced = True
                self._ix.restale.add(thread_id)
            return
        if kind == "snapshot":
            projection = w.get("projection")
            if not isinstance(projection, dict):
                raise ModelInputError("thread snapshot has no `projection` object")
            seq = sequence_of(w, "snapshotSequence")
            rec = self._ix.record(thread_id)
            rec.proj = from_snapshot(projection, rec.proj)
            retain(rec.proj, self.config, self._pinned(thread_id))
            rec.cursor = seq
            self._reindex(rec)
            return
        if "sequence" not in w:
            return
        seq = sequence_of(w)  # another kind with a cursor position: it only moves the cursor
        rec = self._ix.records.get(thread_id)
        if rec is not None and rec.cursor is not None and seq <= rec.cursor:
            return
        self._ix.record(thread_id).cursor = seq

    def _after_event(self, rec: Record, touched: str, payload: Any) -> None:
        ix = self._ix
        if touched == "thread":
            ix.relink(rec.id)
            ix.touch_sharers(rec)
        elif touched == "subagent":
            row = obj(payload)
            ix.index_task(rec.id, row)
            rec.task_ids = rec.task_ids | {str(row.get("id"))}
        elif touched == "session":
            ix.reindex_sessions(rec)
        elif touched == "detached":
            ix.reindex_detaches(rec)
        elif touched in ("tool", "transfer"):
            # a delegate_task call or a published result: read by its children's task rows
            ix.touch_task_children(rec)
        # a task row reaches its child through index_task (it touches that child only)
        ix.refresh(rec.id, with_children=touched in PARENT_READ, patch=EVENT_PATCHES.get(touched))

    def _reindex(self, rec: Record) -> None:
        self._ix.relink(rec.id)
        self._ix.reindex_tasks(rec)
        self._ix.reindex_sessions(rec)
        self._ix.reindex_detaches(rec)
        self._ix.touch(rec.id, with_children=True, own=True)
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
        self._ix.restale.update(self._ix.records)

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

    def threads_of_interest(self) -> frozenset[str]:
        """Threads to subscribe: every visible parent and child (families), and every thread
        with activity (`model/interest.py`), within `watch_cap` streams.

        The client asks after every batch: the answer is kept, and recomputed only when a
        thread it looked at changed (O(threads changed since the last call)).
        """
        ix = self._ix
        changed, ix.refacted = ix.refacted, set()
        families = self._families(changed)
        activity = self._activity
        facts = [(t, ix.own(t) if t in ix.records else None) for t in changed]
        for _, f in facts:
            if f is not None:
                activity.advance(f)
        moved = False
        for thread_id, f in facts:
            moved |= activity.note(thread_id, f)
        moved |= activity.expire()
        if not self.incremental:  # the reference: every thread looked at afresh
            activity = Activity(watch_window_s(self.config))
            activity.clock = self._activity.clock
            for thread_id in ix.records:
                activity.note(thread_id, ix.own(thread_id))
        kept = self._watched
        if self.incremental and not moved and kept is not None and kept[0] is families:
            return kept[1]
        out, self._watching = activity.watched(families, self.watch_cap)
        self._watched = (families, out)
        return out

    def watching(self) -> Watching | None:
        """How many threads with activity are watched, as of the last `threads_of_interest`
        (None before the first: nothing was subscribed by this supervisor's client)."""
        return self._watching

    def set_watch_cap(self, cap: int) -> None:
        self.watch_cap = cap
        self._watched = None

    def _families(self, changed: set[str]) -> frozenset[str]:
        kept = self._interest if self.incremental else None
        self._interest = families(self._ix, kept, changed)
        return self._interest[2]

    # -- check-ins --

    def record_checkin(self, checkin: CheckIn) -> None:
        """Track a check-in (one outstanding per thread; a new one replaces the old)."""
        self._checkins[checkin.thread_id] = checkin
        self._rejected.pop(checkin.thread_id, None)
        self._ix.touch(checkin.thread_id)

    def _pinned(self, thread_id: str) -> frozenset[str]:
        """Message and run ids the memory bound must keep: a check-in's message, its answers
        and its run (its verdict reads them, however many come after)."""
        checkin = self._checkins.get(thread_id)
        rec = self._ix.records.get(thread_id)
        if checkin is None or rec is None or rec.proj is None:
            return frozenset()
        proj = rec.proj
        ours = string(obj(proj.messages.get(checkin.message_id)).get("runId"))
        return frozenset({checkin.message_id, ours or "", *(
            mid for mid, m in proj.messages.items()
            if m.get("role") == "assistant" and is_answer(m.get("text"), checkin.expect)), *(
            rid for rid, r in proj.runs.items() if r.get("userMessageId") == checkin.message_id)})

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

    def forwards(self, thread_id: str) -> dict[str, datetime | None]:
        """Task id -> when the thread's messages first carried t3tui's forward of its result."""
        rec = self._ix.records.get(thread_id)
        return dict(rec.proj.forwards) if rec and rec.proj else {}

    def woken_runs(self, thread_id: str) -> dict[str, frozenset[str]]:
        """The thread's runs under way that a completion wake started, each with the tasks it
        names (`Projection.woken_runs`; the thread's stream, ahead of the shell's row)."""
        rec = self._ix.records.get(thread_id)
        return rec.proj.woken_runs() if rec and rec.proj else {}

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

    changes = staticmethod(changes)


__all__ = ["Change", "Supervisor"]
