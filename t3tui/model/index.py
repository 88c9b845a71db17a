"""Thread records and the cross-thread indexes, updated incrementally (O(1) in thread count)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from t3tui.model.facts import OwnFacts, own_facts
from t3tui.model.projection import Projection
from t3tui.model.shellfacts import shell_only_facts
from t3tui.model.taskids import client_request_id
from t3tui.model.wire import obj, string

MAX_DEPTH = 64  # guards against lineage cycles in malformed data


@dataclass
class Record:
    """Everything known about one thread id."""

    id: str
    shell: dict[str, Any] | None = None
    location: str = "active"
    proj: Projection | None = None
    cursor: int | None = None
    synced: bool = False
    parent: str | None = None
    sessions: frozenset[str] = frozenset()
    task_ids: frozenset[str] = frozenset()
    detach_sids: frozenset[str] = frozenset()


# Facts after an event from the facts before it, reading the thread's data (`factpatch`).
Patch = Callable[[OwnFacts, Record], OwnFacts]


_UNCOVERED: dict[frozenset[Patch], tuple[Patch, ...]] = {}


def _uncovered(patches: dict[Patch, None]) -> tuple[Patch, ...]:
    """Of the patches queued for one read, those whose facts no other one's include (each
    computes its facts from the thread's data as it is when applied, so the other gives them
    too: a run event's patch a turn event's, a message's a progress time's). A patch that
    does not say what it moves (`factpatch.moves`) is always applied. A few sets recur: each
    is worked out once."""
    key = frozenset(patches)
    got = _UNCOVERED.get(key)
    if got is None:
        def covered(p: Patch) -> bool:
            mine = getattr(p, "moves", None)
            return mine is not None and any(
                q is not p and (theirs := getattr(q, "moves", None)) is not None
                and mine <= theirs and (mine != theirs or id(q) < id(p)) for q in key)
        got = _UNCOVERED[key] = tuple(p for p in patches if not covered(p))
    return got


@dataclass
class TreeIndex:
    """Records plus: children by parent, task rows by id/child/clientRequestId, threads by
    provider session, detaches by session. Every change marks the affected threads dirty."""

    records: dict[str, Record] = field(default_factory=dict)
    children: dict[str, set[str]] = field(default_factory=dict)
    task_parent: dict[str, str] = field(default_factory=dict)
    task_child: dict[str, str] = field(default_factory=dict)       # task id -> child id
    child_task: dict[str, str] = field(default_factory=dict)       # child id -> task id
    crid_task: dict[str, str] = field(default_factory=dict)
    session_threads: dict[str, set[str]] = field(default_factory=dict)
    detaches: dict[str, dict[str, list[tuple[datetime | None, str | None]]]] = field(default_factory=dict)
    dirty: set[str] = field(default_factory=set)  # own inputs changed: rows to re-derive
    facts: dict[str, OwnFacts] = field(default_factory=dict)
    # threads whose only change since their row was derived is their own data (`refresh`),
    # with the facts that derivation read: the row may be patched instead of re-derived
    before: dict[str, OwnFacts] = field(default_factory=dict)
    # of those, the ones whose facts since came only from patches: the patches (the facts
    # that can differ from `before`'s are the ones they move, `factpatch.moved_names`)
    moved: dict[str, dict[Patch, None]] = field(default_factory=dict)
    # threads whose stream's synchronization changed (shell or own): only whether their row
    # carries the `stale` overlay may differ; a kept row is relabelled, not re-derived
    restale: set[str] = field(default_factory=set)
    # threads whose facts are behind their data by events that each moved only some fields:
    # the facts before those events, and the patches (`factpatch`) that bring them up to date,
    # applied once when the facts are read (a burst moves a thread many times a frame)
    behind: dict[str, tuple[OwnFacts, dict[Patch, None]]] = field(default_factory=dict)
    # threads whose task row in their parent changed, and not their link to it: their kept
    # row is patched (its task row, state and the rules reading the task), not re-derived
    retask: set[str] = field(default_factory=set)
    # for the interest query: bumped when parent links or task rows change; ids whose own
    # facts changed since it last looked (it re-checks only those)
    shape: int = 0
    refacted: set[str] = field(default_factory=set)

    def record(self, thread_id: str) -> Record:
        rec = self.records.get(thread_id)
        if rec is None:
            rec = self.records[thread_id] = Record(thread_id)
        return rec

    def own(self, thread_id: str) -> OwnFacts:
        """Cached facts of one thread (rebuilt, or patched, only after it changed)."""
        cached = self.facts.get(thread_id)
        if cached is None:
            rec = self.records.get(thread_id) or Record(thread_id)
            lag = self.behind.pop(thread_id, None)
            if lag is None and rec.proj is None and rec.shell:
                # no stream held (most threads of a big tree): the shell row alone
                cached = shell_only_facts(thread_id, rec.shell, rec.location)
            elif lag is None:
                cached = own_facts(thread_id, rec.shell, rec.location, rec.proj)
            else:
                # each patch reads the thread's data as it is now: what `own_facts` gives
                cached = lag[0]
                for patch in _uncovered(lag[1]) if len(lag[1]) > 1 else lag[1]:
                    cached = patch(cached, rec)
            self.facts[thread_id] = cached
        return cached

    # -- dirty tracking --

    def _unlink_from_parent(self, thread_id: str, parent: str | None) -> None:
        """Drop a thread from its parent's child set (the parent's row must be re-derived)."""
        if parent is None:
            return
        self.shape += 1
        siblings = self.children.get(parent)
        if siblings is not None:
            siblings.discard(thread_id)
            if not siblings:
                del self.children[parent]
        self.touch(parent)

    def touch(self, thread_id: str, with_children: bool = False, own: bool = False) -> None:
        """Mark a thread (and its children) dirty; `own`: its shell row or projection changed,
        so its facts go too (they read nothing else: a task row, a link, a check-in or a
        sharer's change leaves them as they are). Its ancestors are re-derived only if its
        row's summary changes (`Supervisor._settle`)."""
        if own:
            self.facts.pop(thread_id, None)
            self.behind.pop(thread_id, None)
        self.refacted.add(thread_id)
        self.dirty.add(thread_id)
        if with_children:
            self.dirty.update(self.children.get(thread_id, ()))

    def refresh(self, thread_id: str, with_children: bool = False,
                patch: Patch | None = None) -> None:
        """The thread's own data changed (an event on its stream, its shell row). Its facts
        are rebuilt when next read, or `patch`ed from the old ones when the event says exactly
        which fields it moved (patches pile up until then, each applied once); if nothing else
        marked it, the old facts are kept so that the row can be patched when whether it is
        shown did not change (`assemble.SHAPE_FACTS`)."""
        self.refacted.add(thread_id)
        if with_children:
            self.dirty.update(self.children.get(thread_id, ()))
        old = self.facts.pop(thread_id, None)
        lag = self.behind.get(thread_id)
        if thread_id not in self.dirty and thread_id not in self.before:
            if old is None and lag is not None:  # behind since before the last derivation
                old = self.own(thread_id)
                del self.facts[thread_id]
                lag = None
            if old is None:
                self.dirty.add(thread_id)  # no facts to compare with: derive the row afresh
                return
            self.before[thread_id] = old
            self.moved[thread_id] = {}
        # (a row derived afresh still reads facts: patched ones, when they can be)
        if patch is None:
            self.behind.pop(thread_id, None)  # rebuilt when read
            self.moved.pop(thread_id, None)  # any fact may differ from `before`'s
            return
        if (moved := self.moved.get(thread_id)) is not None:
            moved[patch] = None
        if lag is not None:
            lag[1][patch] = None
        elif old is not None:
            self.behind[thread_id] = (old, {patch: None})

    def touch_sharers(self, rec: Record) -> None:
        for sid in rec.sessions:
            for other in self.session_threads.get(sid, ()):
                if other != rec.id:
                    self.touch(other)

    # -- tree links --

    def _parent_of(self, rec: Record) -> str | None:
        base = rec.shell or (rec.proj.app_thread if rec.proj else None)
        if base:
            lineage = obj(base.get("lineage"))
            if lineage.get("relationshipToParent") == "subagent":
                parent = string(lineage.get("parentThreadId"))
                return parent if parent != rec.id else None
            return None  # top level, or a fork: forks are not children
        task = self.child_task.get(rec.id)
        return self.task_parent.get(task) if task else None

    def relink(self, thread_id: str) -> None:
        rec = self.record(thread_id)
        parent = self._parent_of(rec)
        if parent == rec.parent:
            return
        self._unlink_from_parent(thread_id, rec.parent)
        rec.parent = parent
        self.shape += 1
        if parent is not None:
            self.children.setdefault(parent, set()).add(thread_id)
            self.touch(parent)  # its children changed (its own event may only patch its row)
        self.touch(thread_id)

    # -- task rows --

    def index_task(self, parent_id: str, row: dict[str, Any]) -> None:
        task_id = str(row.get("id"))
        if self.task_parent.get(task_id) != parent_id:
            self.task_parent[task_id] = parent_id
            self.shape += 1
        if crid := client_request_id(task_id):
            self.crid_task[crid] = task_id
        child = string(row.get("childThreadId"))
        old = self.task_child.get(task_id)
        if old is not None and old != child:
            self.child_task.pop(old, None)
            self.task_child.pop(task_id, None)
            self.relink(old)
            self.collect(old)
        if child is not None:
            linked = self.child_task.get(child) == task_id
            if not linked:
                self.shape += 1
            self.task_child[task_id] = child
            self.child_task[child] = task_id
            self.record(child)
            self.relink(child)
            if linked:
                self.retouch(child)
            else:
                self.touch(child)

    def unindex_task(self, task_id: str) -> None:
        self.shape += 1
        self.task_parent.pop(task_id, None)
        if (crid := client_request_id(task_id)) and self.crid_task.get(crid) == task_id:
            del self.crid_task[crid]
        child = self.task_child.pop(task_id, None)
        if child is not None:
            self.child_task.pop(child, None)
            self.relink(child)
            self.touch(child)
            self.collect(child)

    def reindex_tasks(self, rec: Record) -> None:
        rows = rec.proj.subagents if rec.proj else {}
        for task_id in rec.task_ids - rows.keys():
            self.unindex_task(task_id)
        for row in rows.values():
            self.index_task(rec.id, row)
        rec.task_ids = frozenset(rows)

    def touch_task_children(self, rec: Record) -> None:
        for task_id in rec.task_ids:
            if (child := self.task_child.get(task_id)) is not None:
                self.retouch(child)

    def retouch(self, child: str) -> None:
        """The child's task row changed (not which task, not its parent): `retask`."""
        self.refacted.add(child)
        if child not in self.dirty:
            self.retask.add(child)

    def task_known(self, kind: str, value: str) -> bool:
        if kind == "task":
            return value in self.task_parent or value in self.child_task
        return value in self.crid_task

    # -- provider sessions and detaches --

    def reindex_sessions(self, rec: Record) -> None:
        new = frozenset(rec.proj.session_ids()) if rec.proj else frozenset()
        if new == rec.sessions:
            return
        for sid in rec.sessions - new:
            threads = self.session_threads.get(sid)
            if threads is not None:
                threads.discard(rec.id)
                if not threads:
                    del self.session_threads[sid]
        for sid in new - rec.sessions:
            self.session_threads.setdefault(sid, set()).add(rec.id)
        self.touch_sharers(rec)
        rec.sessions = new
        self.touch_sharers(rec)

    def reindex_detaches(self, rec: Record) -> None:
        for sid in rec.detach_sids:
            by_thread = self.detaches.get(sid, {})
            by_thread.pop(rec.id, None)
            if not by_thread:
                self.detaches.pop(sid, None)
        sids = set()
        for sid, at, reason in rec.proj.detaches if rec.proj else ():
            self.detaches.setdefault(sid, {}).setdefault(rec.id, []).append((at, reason))
            sids.add(sid)
            for other in self.session_threads.get(sid, ()):
                self.touch(other)
        rec.detach_sids = frozenset(sids)

    # -- lifetime --

    def collect(self, thread_id: str) -> None:
        """Drop a record nothing refers to any more (no shell, projection or task row)."""
        rec = self.records.get(thread_id)
        if rec is None or rec.shell or rec.proj or thread_id in self.child_task:
            return
        if self.children.get(thread_id):
            return  # still the parent link of visible children (they show as orphans)
        self._unlink_from_parent(thread_id, rec.parent)
        self.facts.pop(thread_id, None)
        self.behind.pop(thread_id, None)
        self.refacted.add(thread_id)
        self.shape += 1
        del self.records[thread_id]
        self.dirty.add(thread_id)
