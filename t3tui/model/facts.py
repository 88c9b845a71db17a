"""Per-thread facts: everything the states and detectors need from ONE thread's own data."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from t3tui.model.deadlines import note
from t3tui.model.projection import (
    ACTIVE_RUN,
    TERMINAL_RUN,
    TERMINAL_TASK,
    Claim,
    Projection,
    ToolCall,
)
from t3tui.model.provider_record import NativeRef
from t3tui.model.rows import PendingRequest, TaskInfo
from t3tui.model.taskids import client_request_id
from t3tui.model.turnfacts import turn_side
from t3tui.model.wire import earliest, latest, obj, objs, string, ts, ts_key

# One shared empty set: an empty frozenset is 216 bytes, and a thread's facts held three per
# thread of a 10,000-thread tree.
_NONE: frozenset[str] = frozenset()

@dataclass(frozen=True)
class TaskFacts:
    """One task row of a parent, with its wait-mode history resolved."""

    task_id: str
    parent_id: str
    child_thread_id: str | None
    run_id: str | None
    title: str | None
    origin: str | None
    status: str | None
    delivery: str | None
    wake: str
    mode: str
    timeout_ms: int | None
    started_at: datetime | None
    completed_at: datetime | None
    updated_at: datetime | None
    flipped_at: datetime | None
    return_at: datetime | None            # the wait's return as events show it
    budget_at: datetime | None            # startedAt + timeoutMs, when the tool input says
    published: bool
    client_request_id: str | None
    prompt: str | None = None             # the task text the child was given
    result: str | None = None             # the published result text

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_TASK

    def returned_at(self, now: datetime | None = None) -> datetime | None:
        """When the wait call returned: seen in events, or its budget ran out (by `now`)."""
        budget = self.budget_at if now is None or (self.budget_at and self.budget_at <= now) else None
        if now is not None and budget is None:
            note(self.budget_at)  # the wait times out then, by time alone
        return earliest(self.return_at, budget)

    def wait_result(self, now: datetime) -> str | None:
        """`open`, `returned` (the child finished first) or `timed_out`; None for async."""
        if self.mode != "wait":
            return None
        returned = self.returned_at(now)
        if returned is None:
            return "open"
        if self.completed_at is not None and self.completed_at <= returned:
            return "returned"
        return "timed_out"

    def as_info(self, now: datetime, cohort: str | None = None) -> TaskInfo:
        return TaskInfo(
            task_id=self.task_id, parent_thread_id=self.parent_id, parent_run_id=self.run_id,
            client_request_id=self.client_request_id, title=self.title, origin=self.origin,
            mode=self.mode, completion_wake=self.wake, timeout_ms=self.timeout_ms,
            wait_result=self.wait_result(now), wait_returned_at=self.returned_at(now),
            status=self.status,
            delivery=self.delivery, started_at=self.started_at, completed_at=self.completed_at,
            result_published=self.published or self.terminal,
            result=self.result, cohort=cohort,
        )


@dataclass(frozen=True)
class OwnFacts:
    """Time-independent facts about one thread, cached until its record changes."""

    id: str
    title: str
    created_at: datetime | None
    visible: bool
    lineage_parent: str | None
    creation_source: str | None
    settled: bool
    settled_at: datetime | None
    archived_at: datetime | None
    provider: str | None
    model: str | None
    status: str | None                    # latest run status ("idle" = no runs)
    activity: str | None                  # preparing | starting | running | waiting | None
    active_run_id: str | None
    run_requested_at: datetime | None
    run_started_at: datetime | None
    run_completed_at: datetime | None
    latest_run_requested_at: datetime | None
    activity_since: datetime | None       # when the active run entered its current status
    pending: PendingRequest | None
    latest_message: str | None
    shell_updated_at: datetime | None
    background_tasks: int
    agent_progress_at: datetime | None
    provider_turn_status: str | None
    provider_turn_ended_at: datetime | None
    provider_thread_idle_at: datetime | None  # went idle during the active run
    session_ids: frozenset[str]           # every provider session this thread holds
    run_session_ids: frozenset[str]       # the session(s) its active run's provider thread uses
    session_attached_at: dict[str, datetime | None]  # explicit re-attach events seen live
    stopped_session: tuple[str, str, datetime | None] | None  # (id, status, since)
    native_thread: NativeRef | None       # the provider's own id of the run's provider thread
    native_turn: NativeRef | None         # ... and of its latest provider turn
    provider_turn_id: str | None          # T3's id of that provider turn
    provider_turn_started_at: datetime | None
    subscribed: bool
    has_record: bool                      # shell row or projection (else task-row placeholder)
    tasks: tuple[TaskFacts, ...]
    task_index: dict[str, TaskFacts]
    cohorts: dict[str, str]               # parent run id -> delegatedCompletion.disposition
    mentions: tuple[tuple[str, str, datetime | None, str], ...]
    claims: tuple[Claim, ...]
    # the active run's interrupt request with no result yet: (requested at, its message)
    interrupt_asked: tuple[datetime | None, str | None] | None = None
    interrupt_answered: frozenset[str] = _NONE  # runs with a run_interrupt_result item
    # the latest run ended `interrupted` but provider parts still run: (run id, ended at, parts)
    runaway: tuple[str, datetime | None, tuple[str, ...]] | None = None
    # `delegate_task` wait calls that ended without returning a taskId (the client gave up)
    dead_waits: tuple[ToolCall, ...] = ()

    @property
    def own_active(self) -> bool:
        return self.activity is not None or self.pending is not None

    @property
    def last_activity_at(self) -> datetime | None:
        # `latest` of the three, written out: every running row's no-progress rule reads it
        best, shell, run = self.agent_progress_at, self.shell_updated_at, self.run_started_at
        if shell is not None and (best is None or shell > best):
            best = shell
        if run is not None and (best is None or run > best):
            best = run
        return best


def preview(shell: dict[str, Any], proj: Projection | None) -> str | None:
    msg = obj(shell.get("latestVisibleMessage"))
    text = msg.get("text")
    if not isinstance(text, str) and proj is not None and proj.messages:
        newest = max(proj.messages.values(), key=lambda m: ts_key(m.get("updatedAt")))
        text = newest.get("text")
    if not isinstance(text, str):
        return None
    line = " ".join(text.split())
    return line[:200]


def task_facts(parent_id: str, proj: Projection,
               memo: dict[str, tuple[Any, ...]] | None = None) -> tuple[TaskFacts, ...]:
    """Resolve every task row of a parent: mode, wait timeout and when the wait returned.
    `memo` (a patch's, kept with the projection): each task's facts with what they were
    built from, the same objects; a task whose inputs are all the same keeps its facts (a
    task row update moves one of a parent's tasks), and the memo is refilled."""
    by_crid = {c.client_request_id: c for c in proj.tool_calls.values() if c.client_request_id}
    by_task = {c.task_id: c for c in proj.tool_calls.values() if c.task_id}
    out = []
    was = dict(memo) if memo is not None else None
    if memo is not None:
        memo.clear()  # only the tasks the projection still holds
    for task_id, row in proj.subagents.items():
        crid = client_request_id(task_id)
        tool = by_task.get(task_id) or (by_crid.get(crid) if crid else None)
        child = string(row.get("childThreadId"))
        first = proj.wake_first.get(task_id)
        flipped = proj.wake_flipped_at.get(task_id)
        published = (child in proj.published) if child else False
        if was is not None:
            got = was.get(task_id)
            if got is not None and got[0] is row and got[1] is tool and got[2] == first \
                    and got[3] == flipped and got[4] == published:
                memo[task_id] = got  # type: ignore[index]
                out.append(got[5])
                continue
        wake = string(row.get("completionWake")) or "settled_only"
        first = first if first is not None else wake
        mode = "wait" if first == "settled_only" or (tool and tool.mode == "wait") else "async"
        timeout_ms = tool.timeout_ms if tool else None
        started = ts(row.get("startedAt"))
        completed = ts(row.get("completedAt")) if row.get("status") in TERMINAL_TASK else None
        return_at = budget = None
        if mode == "wait":
            budget = started + timedelta(milliseconds=timeout_ms) if started and timeout_ms else None
            return_at = earliest(flipped, tool.completed_at if tool else None, completed)
        facts = TaskFacts(
            task_id=task_id, parent_id=parent_id, child_thread_id=child,
            run_id=string(row.get("runId")), title=string(row.get("title")),
            origin=string(row.get("origin")), status=string(row.get("status")),
            delivery=string(obj(row.get("completionDelivery")).get("state")),
            wake=wake, mode=mode, timeout_ms=timeout_ms, started_at=started,
            completed_at=completed, updated_at=ts(row.get("updatedAt")), flipped_at=flipped,
            return_at=return_at, budget_at=budget,
            published=published,
            client_request_id=crid,
            prompt=string(row.get("prompt")),
            result=string(row.get("result")),
        )
        if memo is not None:
            memo[task_id] = (row, tool, proj.wake_first.get(task_id), flipped, published, facts)
        out.append(facts)
    return tuple(out)


def _built(fields: dict[str, Any]) -> OwnFacts:
    """Facts from every one of their fields, without the frozen dataclass's `__init__`: with
    47 fields passed by keyword and set one by one through `object.__setattr__`, it was half
    of `own_facts`, which runs for every thread of a snapshot. (Over 30 attributes an
    instance's dict is a dict of its own anyway, so filling it at once costs no memory.)
    tests/model/test_facts_built.py holds the fields to the dataclass's."""
    facts = object.__new__(OwnFacts)
    facts.__dict__.update(fields)
    return facts


def own_facts(thread_id: str, shell: dict[str, Any] | None, location: str,
              proj: Projection | None) -> OwnFacts:
    """Build the facts of one thread from its shell row and (if subscribed) its projection."""
    sh = shell or {}
    app = (proj.app_thread if proj else None) or {}
    base = sh or app
    lineage = obj(base.get("lineage"))
    parent = string(lineage.get("parentThreadId")) if lineage.get("relationshipToParent") == "subagent" else None
    sel = obj(base.get("modelSelection"))
    pending = None
    req = obj(sh.get("pendingRuntimeRequest")) or (proj.pending_request() if proj else None) or {}
    if req.get("id"):
        pending = PendingRequest(str(req["id"]), str(req.get("kind") or "request"), ts(req.get("createdAt")))
    tasks = task_facts(thread_id, proj) if proj else ()
    archived = location == "archive" or bool(base.get("archivedAt")) or bool(base.get("deletedAt"))
    return _built({
        "id": thread_id,
        "title": string(base.get("title")) or thread_id,
        "created_at": ts(base.get("createdAt")),
        "visible": bool(base) and not archived,
        "lineage_parent": parent,
        "creation_source": string(base.get("creationSource")),
        "settled": base.get("settledOverride") == "settled",
        "settled_at": ts(base.get("settledAt")),
        "archived_at": ts(base.get("archivedAt")),
        "provider": string(base.get("providerInstanceId")) or string(sel.get("instanceId")),
        "model": string(sel.get("model")),
        **run_side(sh, base, proj),
        "pending": pending,
        "latest_message": preview(sh, proj),
        "shell_updated_at": ts(sh.get("updatedAt")),
        "background_tasks": len(objs(sh.get("pendingBackgroundTasks"))),
        "session_ids": frozenset(proj.session_ids()) if proj else _NONE,
        "session_attached_at": dict(proj.attached_at) if proj else {},
        "subscribed": proj is not None,
        "has_record": bool(base),
        "tasks": tasks,
        "task_index": {t.task_id: t for t in tasks},
        "mentions": mentions_of(proj) if proj else (),
        "claims": tuple(proj.claims.values()) if proj else (),
        "interrupt_answered": frozenset(proj.interrupt_results) if proj else _NONE,
        "dead_waits": tuple(c for c in proj.tool_calls.values()
                         if c.mode == "wait" and c.completed_at is not None and not c.task_id)
        if proj else (),
    })


def run_side(sh: dict[str, Any], base: dict[str, Any], proj: Projection | None) -> dict[str, Any]:
    """The facts that read the thread's runs and run attempts (`sh`: its shell row or {};
    `base`: that row, else the projection's thread): what a run event moves, patched alone
    (`factpatch.run_facts`); `turn_side` with them, as the latest turn is the run's."""
    run, latest_run, activity, status, active_run_id = runs_of(sh, proj)
    since = None
    if run is not None and proj is not None:
        since = proj.run_since.get(str(run.get("id")), (None, None))[1]
    cohorts = dict(proj.dropped_cohorts) if proj else {}
    if proj:
        for rid, r in proj.runs.items():
            disp = string(obj(r.get("delegatedCompletion")).get("disposition"))
            if disp:
                cohorts[rid] = disp
    requested = [ts(r.get("requestedAt")) for r in proj.runs.values()] if proj else []
    if proj and proj.dropped_requested_at:
        requested.append(proj.dropped_requested_at)
    return {
        "status": status,
        "activity": activity,
        "active_run_id": active_run_id,
        "run_requested_at": ts(run.get("requestedAt")) if run else ts(sh.get("latestRunRequestedAt")),
        "run_started_at": (ts(run.get("startedAt")) if run else None) or ts(sh.get("latestRunStartedAt")),
        "run_completed_at": ts(sh.get("latestRunCompletedAt")) or (ts(latest_run.get("completedAt")) if latest_run else None),
        "latest_run_requested_at": latest(ts(sh.get("latestRunRequestedAt")), *requested),
        "activity_since": since,
        **turn_side(base, proj, run, latest_run, activity),
        "run_session_ids": _run_sessions(proj, run, base),
        "cohorts": cohorts,
        "interrupt_asked": _interrupt_asked(proj, active_run_id) if proj and activity else None,
    }


def mentions_of(proj: Projection) -> tuple[tuple[str, str, datetime | None, str], ...]:
    return tuple((k, v, at, src) for (k, v), (at, src) in proj.mentions.items())


def runs_of(sh: dict[str, Any], proj: Projection | None) -> tuple[Any, ...]:
    """(active run, latest run, activity, status, active run id): the shell row says, else the
    projection's runs."""
    run = proj.active_run() if proj else None
    latest_run = proj.latest_run() if proj else None
    if sh:
        activity = string(sh.get("activityRunStatus"))
        status = string(sh.get("status"))
        active_run_id = string(sh.get("activeRunId"))
    else:
        activity = _activity_of(run)
        status = string(latest_run.get("status")) if latest_run else ("idle" if proj else None)
        active_run_id = string(run.get("id")) if run else None
    if proj and active_run_id and active_run_id in proj.runs:
        run = proj.runs[active_run_id]
    return run, latest_run, activity, status, active_run_id


def _interrupt_asked(proj: Projection, run_id: str | None) -> tuple[datetime | None, str | None] | None:
    """The active run was asked to stop and no interrupt result has come back."""
    if run_id is None or run_id in proj.interrupt_results:
        return None
    return proj.interrupt_requests.get(run_id)


def _run_sessions(proj: Projection | None, run: dict[str, Any] | None,
                  base: dict[str, Any]) -> frozenset[str]:
    """The provider session the active run talks through (all sessions when unknown)."""
    if proj is None:
        return _NONE
    pthread_id = (run or {}).get("providerThreadId") or base.get("activeProviderThreadId")
    pthread = proj.provider_threads.get(str(pthread_id)) if pthread_id else None
    sid = string(pthread.get("providerSessionId")) if pthread else None
    return frozenset({sid}) if sid else frozenset(proj.session_ids())


def _activity_of(run: dict[str, Any] | None) -> str | None:
    """The shell's activityRunStatus, derived from a run (queued counts as preparing)."""
    if run is None:
        return None
    status = run.get("status")
    if status == "queued":
        return "preparing"
    return status if status in ACTIVE_RUN else None


__all__ = ["TERMINAL_RUN", "OwnFacts", "TaskFacts", "mentions_of", "own_facts", "preview",
           "runs_of", "task_facts"]
