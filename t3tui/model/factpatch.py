"""Facts updated from one event, field by field, instead of rebuilt (`own_facts`).

Each patch gives exactly what `own_facts` would give after that event (the supervisor applies
it when the event says what it moved: `projection.apply_event`'s answer, a shell row that
changed only in the keys `shell_facts` reads); tests/model/test_patched_rows.py compares them
with a rebuild after every item of every fixture. A patch computes its fields from the
thread's data as it is when applied, with `own_facts`'s own formulas for them, so the index
applies the patches of many events once, when the facts are read (`TreeIndex.refresh`). The
event patches are queued only for a thread with a projection, `shell_facts` only for one with
a shell row; the index drops what is queued when either goes (`TreeIndex.touch`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from t3tui.model.facts import OwnFacts, mentions_of, preview, run_side, runs_of, task_facts
from t3tui.model.index import Patch, Record
from t3tui.model.turnfacts import turn_side
from t3tui.model.wire import string, ts


def moves(*names: str):
    """Mark a patch with the facts it can move (it replaces no other): a row patched after
    such events compares only those with the facts it was derived from (`moved_names`)."""

    def mark(fn):
        fn.moves = frozenset(names)
        return fn

    return mark


def replaced(old: OwnFacts, **changes: Any) -> OwnFacts:
    """`dataclasses.replace` without re-running `__init__` over ~50 fields (a frozen copy)."""
    new = object.__new__(OwnFacts)
    new.__dict__.update(old.__dict__)
    new.__dict__.update(changes)
    return new


@moves("agent_progress_at")
def progress_facts(old: OwnFacts, rec: Record) -> OwnFacts:
    """The facts after an event that moved only the projection's progress time (a turn item
    that is neither a delegate call nor an interrupt, a plan): what `own_facts` would give."""
    return replaced(old, agent_progress_at=rec.proj.last_progress_at)


@moves("tasks", "task_index")
def subagent_facts(old: OwnFacts, rec: Record) -> OwnFacts:
    """The facts after a `subagent.updated` (a task row and its wake history): the tasks."""
    tasks = task_facts(old.id, rec.proj, rec.proj.task_memo)
    return replaced(old, tasks=tasks, task_index={t.task_id: t for t in tasks})


@moves("agent_progress_at", "latest_message", "mentions", "claims")
def message_facts(old: OwnFacts, rec: Record) -> OwnFacts:
    """The facts after a `message.updated`: progress, preview, mentions and claims."""
    proj = rec.proj
    return replaced(old, agent_progress_at=proj.last_progress_at,
                    latest_message=preview(rec.shell or {}, proj), mentions=mentions_of(proj),
                    claims=tuple(proj.claims.values()))


# The keys of a shell row `own_facts` reads. An update that changed none of them but the
# ones `shell_facts` patches (or only keys the facts never read) leaves every other fact as
# it was.
SHELL_READ = frozenset({
    "activeProviderThreadId", "activeRunId", "activityRunStatus", "archivedAt", "createdAt",
    "creationSource", "deletedAt", "latestRunCompletedAt", "latestRunRequestedAt",
    "latestRunStartedAt", "latestVisibleMessage", "lineage", "modelSelection",
    "pendingBackgroundTasks", "pendingRuntimeRequest", "providerInstanceId", "settledAt",
    "settledOverride", "status", "title", "updatedAt"})
_SHELL_PATCHED = frozenset({"updatedAt", "latestVisibleMessage", "title"})
_SHELL_KEPT = tuple(sorted(SHELL_READ - _SHELL_PATCHED))


def shell_patchable(old: dict[str, Any] | None, new: dict[str, Any]) -> bool:
    """Both rows exist and differ at most in the keys `shell_facts` patches."""
    if not old or not new:
        return False  # the facts read the projection's thread instead of an empty row
    # (the two lists are built by `map` in C: a generator here was a third of a shell item)
    return list(map(old.get, _SHELL_KEPT)) == list(map(new.get, _SHELL_KEPT))


@moves("title", "shell_updated_at", "latest_message")
def shell_facts(old: OwnFacts, rec: Record) -> OwnFacts:
    """The facts after a `shell_patchable` update: title, shell update time, preview."""
    shell = rec.shell
    return replaced(old, title=string(shell.get("title")) or old.id,
                    shell_updated_at=ts(shell.get("updatedAt")),
                    latest_message=preview(shell, rec.proj))


@moves("shell_updated_at")
def shell_time_facts(old: OwnFacts, rec: Record) -> OwnFacts:
    """The facts after a `shell_patchable` update whose title and latest message are as they
    were (an idle thread's `updatedAt` moved): the shell update time alone."""
    return replaced(old, shell_updated_at=ts(rec.shell.get("updatedAt")))


def shell_patch(old: dict[str, Any] | None, new: dict[str, Any]) -> Patch | None:
    """The patch of the facts a shell row `new` replacing `old` needs (None: they are rebuilt
    when read): most updates of a big tree move only the row's time, and a preview built
    again for them was most of their patch."""
    if old is None or not shell_patchable(old, new):
        return None
    if old.get("title") == new.get("title") \
            and old.get("latestVisibleMessage") == new.get("latestVisibleMessage"):
        return shell_time_facts
    return shell_facts


def changed_fields(old: OwnFacts, new: OwnFacts,
                   names: tuple[str, ...] | None = None) -> list[str]:
    """The names of the facts that differ (a patch shares most values with the old facts:
    the same object is equal without comparing a tuple or a dict of them); `names`: only
    those can differ (`moved_names`)."""
    now = new.__dict__
    if names is not None:
        was = old.__dict__
        return [name for name in names if (a := was[name]) is not (b := now[name]) and a != b]
    return [name for name, value in old.__dict__.items()
            if (other := now[name]) is not value and other != value]


_FIELDS = tuple(OwnFacts.__dataclass_fields__)
_MOVED: dict[frozenset[Patch], tuple[str, ...]] = {}


def moved_names(patches: Collection[Patch]) -> tuple[str, ...]:
    """The facts these patches can move, in the facts' order (a few sets of patches recur:
    each is worked out once)."""
    key = frozenset(patches)
    got = _MOVED.get(key)
    if got is None:
        moved = frozenset().union(*(p.moves for p in key))  # type: ignore[attr-defined]
        got = _MOVED[key] = tuple(f for f in _FIELDS if f in moved)
    return got


# (with no projection `turn_side` and `run_side` give every key they give with one)
@moves(*turn_side({}, None, None, None, None))
def turn_facts(old: OwnFacts, rec: Record) -> OwnFacts:
    """The facts after a `provider-turn.updated` (what `turn_side` reads)."""
    sh, proj = rec.shell or {}, rec.proj
    run, latest_run, activity, _, _ = runs_of(sh, proj)
    return replaced(old, **turn_side(sh or proj.app_thread or {}, proj, run, latest_run,
                                      activity))


@moves(*run_side({}, {}, None))
def run_facts(old: OwnFacts, rec: Record) -> OwnFacts:
    """The facts after a run or run attempt event (`facts.run_side`: the run's times, state,
    cohorts and provider turn); memory trimmed with it changes no fact (`retention`)."""
    sh = rec.shell or {}
    return replaced(old, **run_side(sh, sh or rec.proj.app_thread or {}, rec.proj))



# What an event moved (`projection.apply_event`'s answer) -> the patch of the facts it needs
# (no patch: the facts are rebuilt when read)
EVENT_PATCHES = {"progress": progress_facts, "message": message_facts,
                 "subagent": subagent_facts, "turn": turn_facts, "run": run_facts}

# What an event moved, when it can move a fact its thread's children's rows read of it (the
# rules' `parent.*`: activity, pending request, run times, title, cohorts; the task info's
# cohort): the supervisor marks the children for re-derivation. A runtime request moves its
# pending one (tests/model/test_parent_facts.py changes each such fact alone).
PARENT_READ = frozenset({"run", "thread", "request"})


__all__ = ["EVENT_PATCHES", "PARENT_READ", "SHELL_READ", "changed_fields", "message_facts", "moved_names",
           "moves", "progress_facts", "replaced", "run_facts", "shell_facts", "shell_patch",
           "shell_patchable", "shell_time_facts", "subagent_facts", "turn_facts"]
