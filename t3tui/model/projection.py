"""One thread's projection as the model keeps it: entities by id plus a few derived marks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from t3tui.model.taskids import claimed_children, client_request_id, forwarded_task, mentions
from t3tui.model.wire import ModelInputError, latest, maybe_json, obj, objs, string, ts, ts_key

ACTIVE_RUN = frozenset({"preparing", "queued", "starting", "running", "waiting"})
TERMINAL_RUN = frozenset({"completed", "interrupted", "failed", "cancelled", "rolled_back"})
TERMINAL_TURN = frozenset({"completed", "interrupted", "failed", "cancelled"})
TERMINAL_TASK = frozenset({"completed", "failed", "cancelled", "interrupted"})


@dataclass
class ToolCall:
    """A `delegate_task` tool item in the parent timeline (arrival, mode, return)."""

    item_id: str
    mode: str | None
    timeout_ms: int | None
    client_request_id: str | None
    task_id: str | None
    started_at: datetime | None
    completed_at: datetime | None
    title: str | None = None
    task: str | None = None               # the `task` text the agent asked for
    failed: bool = False                  # ended failed/cancelled/interrupted or with a tool failure


@dataclass(frozen=True)
class Claim:
    """The agent says it started `count` children (naming `names`) in one message."""

    message_id: str
    run_id: str | None
    count: int
    names: tuple[str, ...]
    at: datetime | None


@dataclass
class Projection:
    """Entities of one thread stream. Replaced on snapshot; upserted on events."""

    app_thread: dict[str, Any] | None = None
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    run_since: dict[str, tuple[str, datetime | None]] = field(default_factory=dict)
    attempts: dict[str, dict[str, Any]] = field(default_factory=dict)
    turns: dict[str, dict[str, Any]] = field(default_factory=dict)
    provider_threads: dict[str, dict[str, Any]] = field(default_factory=dict)
    provider_sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    runtime_requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    subagents: dict[str, dict[str, Any]] = field(default_factory=dict)
    wake_first: dict[str, str] = field(default_factory=dict)
    wake_flipped_at: dict[str, datetime | None] = field(default_factory=dict)
    published: set[str] = field(default_factory=set)
    tool_calls: dict[str, ToolCall] = field(default_factory=dict)
    mentions: dict[tuple[str, str], tuple[datetime | None, str]] = field(default_factory=dict)
    claims: dict[str, Claim] = field(default_factory=dict)
    # task id -> when a user message first forwarded its result here (kept past retention)
    forwards: dict[str, datetime | None] = field(default_factory=dict)
    detaches: list[tuple[str, datetime | None, str | None]] = field(default_factory=list)
    attached_at: dict[str, datetime | None] = field(default_factory=dict)
    # run id -> (when, message) of its first `run_interrupt_request` item / its result item
    interrupt_requests: dict[str, tuple[datetime | None, str | None]] = field(default_factory=dict)
    interrupt_results: dict[str, datetime | None] = field(default_factory=dict)
    last_progress_at: datetime | None = None
    # what the rules read of runs dropped from memory (model/retention.py)
    dropped_cohorts: dict[str, str] = field(default_factory=dict)
    dropped_requested_at: datetime | None = None
    # each task's facts with the objects they were built from (`facts.task_facts`): a task
    # row update's patch rebuilds that task's alone
    task_memo: dict[str, tuple[Any, ...]] = field(default_factory=dict, repr=False, compare=False)

    # -- derived lookups (per thread; cost independent of the number of threads) --

    def session_ids(self) -> set[str]:
        """Provider sessions this thread runs in (its provider threads and sessions)."""
        sids = {s for pt in self.provider_threads.values() if (s := string(pt.get("providerSessionId")))}
        return sids | set(self.provider_sessions)

    def latest_turn(self, run: dict[str, Any]) -> dict[str, Any] | None:
        """The newest provider turn of a run (by attempt, else by provider thread and time)."""
        run_id = run.get("id")
        attempt_ids = {a for a, att in self.attempts.items() if att.get("runId") == run_id}
        started = ts(run.get("startedAt"))
        candidates = []
        for turn in self.turns.values():
            if turn.get("runAttemptId") in attempt_ids:
                candidates.append(turn)
            elif not attempt_ids and turn.get("providerThreadId") == run.get("providerThreadId"):
                turn_start = ts(turn.get("startedAt"))
                if started is not None and turn_start is not None and turn_start >= started:
                    candidates.append(turn)
        if not candidates:
            return None
        return max(candidates, key=lambda t: (t.get("ordinal") or 0, ts_key(t.get("startedAt"))))

    def active_run(self) -> dict[str, Any] | None:
        active = [r for r in self.runs.values() if r.get("status") in ACTIVE_RUN]
        return max(active, key=lambda r: r.get("ordinal") or 0) if active else None

    def latest_run(self) -> dict[str, Any] | None:
        return max(self.runs.values(), key=lambda r: r.get("ordinal") or 0) if self.runs else None

    def wake_tasks(self, run_id: str) -> frozenset[str] | None:
        """The tasks whose completion wake started `run_id` (its message's
        `delegatedCompletion.taskIds`; empty: something else started it), or None while the
        stream has not shown the run and its message."""
        run = self.runs.get(run_id)
        message = self.messages.get(str(run.get("userMessageId"))) if run else None
        if message is None:
            return None
        ids = obj(message.get("delegatedCompletion")).get("taskIds")
        return frozenset(t for t in ids if isinstance(t, str)) if isinstance(ids, list) \
            else frozenset()

    def woken_runs(self) -> dict[str, frozenset[str]]:
        """Run id -> its wake's tasks, for each run under way (not queued) that a completion
        wake started, as far as the stream has shown its message."""
        out = {}
        for run_id, run in self.runs.items():
            status = run.get("status")
            if status in ACTIVE_RUN and status != "queued" and (tasks := self.wake_tasks(run_id)):
                out[run_id] = tasks
        return out

    def pending_request(self) -> dict[str, Any] | None:
        pending = [r for r in self.runtime_requests.values() if r.get("status") == "pending"]
        return min(pending, key=lambda r: ts_key(r.get("createdAt"))) if pending else None


def _progress_of(kind: str, entity: dict[str, Any]) -> datetime | None:
    """When an entity last showed agent-side progress (None: not progress)."""
    if kind == "turn-item":
        # the user's own message or interrupt request is not the agent making progress
        if entity.get("type") in ("user_message", "run_interrupt_request"):
            return None
        return latest(ts(entity.get("updatedAt")), ts(entity.get("startedAt")))
    if kind == "message":
        if entity.get("role") != "assistant":
            return None
        return latest(ts(entity.get("updatedAt")), ts(entity.get("createdAt")))
    if kind == "provider-turn":
        usage = obj(entity.get("tokenUsage"))
        if entity.get("status") not in TERMINAL_TURN and (not usage or usage.get("usedTokens") == 0):
            # a turn that merely started is not progress, nor is the zero usage some providers
            # report as it starts (else a check-in that starts a run answers itself)
            return None
        return latest(ts(usage.get("updatedAt")), ts(entity.get("completedAt")))
    if kind == "plan":
        return ts(entity.get("updatedAt"))
    return None


def _note_progress(proj: Projection, kind: str, entity: dict[str, Any]) -> None:
    proj.last_progress_at = latest(proj.last_progress_at, _progress_of(kind, entity))


def _note_mentions(proj: Projection, text: str, at: datetime | None, source: str) -> None:
    for mention in mentions(text):
        proj.mentions.setdefault(mention, (at, source))


def _is_delegate_tool(item: dict[str, Any]) -> bool:
    return item.get("type") == "dynamic_tool" and "delegate_task" in str(item.get("toolName") or "")


def _note_tool_call(proj: Projection, item: dict[str, Any]) -> None:
    args = obj(maybe_json(item.get("input")))
    out = obj(maybe_json(item.get("output")))
    crid = string(args.get("clientRequestId"))
    task_id = string(out.get("taskId"))
    timeout = args.get("timeoutMs")
    item_id = str(item.get("id"))
    failed = item.get("status") in ("failed", "cancelled", "interrupted") or \
        out.get("_tag") == "OrchestratorMcpFailure"
    proj.tool_calls[item_id] = ToolCall(
        item_id=item_id,
        mode=string(args.get("mode")) or "async",
        timeout_ms=int(timeout) if isinstance(timeout, int | float) and not isinstance(timeout, bool) else None,
        client_request_id=crid or client_request_id(task_id),
        task_id=task_id,
        started_at=ts(item.get("startedAt")),
        completed_at=ts(item.get("completedAt")) if item.get("status") not in ("running", "pending") else None,
        title=string(args.get("title")),
        task=string(args.get("task")),
        failed=failed,
    )
    at = ts(item.get("startedAt"))
    if crid and not failed:
        proj.mentions.setdefault(("client_request", crid), (at, item_id))
    elif crid and proj.mentions.get(("client_request", crid), (None, ""))[1] == item_id:
        del proj.mentions[("client_request", crid)]  # the call failed: the agent was told


def upsert_subagent(proj: Projection, row: dict[str, Any], at: datetime | None) -> None:
    """Upsert a task row, remembering its first wake policy and a live flip to `always`."""
    task_id = str(row.get("id"))
    wake = string(row.get("completionWake")) or "settled_only"
    previous = proj.subagents.get(task_id)
    proj.wake_first.setdefault(task_id, wake)
    if previous is not None:
        before = string(previous.get("completionWake")) or "settled_only"
        if before == "settled_only" and wake == "always" and task_id not in proj.wake_flipped_at:
            proj.wake_flipped_at[task_id] = at or ts(row.get("updatedAt"))
    proj.subagents[task_id] = row


def _upsert_run(proj: Projection, run: dict[str, Any], at: datetime | None) -> None:
    run_id = str(run.get("id"))
    status = str(run.get("status"))
    before = proj.runs.get(run_id)
    if before is None or before.get("status") != status or run_id not in proj.run_since:
        proj.run_since[run_id] = (status, at or _status_time(run))
    proj.runs[run_id] = run


def _status_time(run: dict[str, Any]) -> datetime | None:
    status = run.get("status")
    if status in TERMINAL_RUN:
        return ts(run.get("completedAt"))
    if status in ("starting", "running"):
        return ts(run.get("startedAt")) or ts(run.get("requestedAt"))
    if status in ("queued", "preparing"):
        return ts(run.get("requestedAt"))
    return None  # `waiting`: unknown from the row alone


def _note_transfer(proj: Projection, transfer: dict[str, Any]) -> None:
    if transfer.get("type") == "subagent_result" and (src := string(transfer.get("sourceThreadId"))):
        proj.published.add(src)


def from_snapshot(projection: dict[str, Any], keep: Projection | None) -> Projection:
    """A fresh projection from a snapshot; wake flips seen live survive (snapshots lack them)."""
    proj = Projection(app_thread=obj(projection.get("thread")) or None)
    for run in objs(projection.get("runs")):
        _upsert_run(proj, run, None)
    for att in objs(projection.get("attempts")):
        proj.attempts[str(att.get("id"))] = att
    for turn in objs(projection.get("providerTurns")):
        proj.turns[str(turn.get("id"))] = turn
        _note_progress(proj, "provider-turn", turn)
    for pt in objs(projection.get("providerThreads")):
        proj.provider_threads[str(pt.get("id"))] = pt
    for sess in objs(projection.get("providerSessions")):
        proj.provider_sessions[str(sess.get("id"))] = sess
    for req in objs(projection.get("runtimeRequests")):
        proj.runtime_requests[str(req.get("id"))] = req
    for msg in objs(projection.get("messages")):
        _apply_message(proj, msg)
    for row in objs(projection.get("subagents")):
        upsert_subagent(proj, row, None)
    for transfer in objs(projection.get("contextTransfers")):
        _note_transfer(proj, transfer)
    for item in objs(projection.get("turnItems")):
        _apply_turn_item(proj, item)
    for plan in objs(projection.get("plans")):
        _note_progress(proj, "plan", plan)
    if keep is not None:
        for task_id, first in keep.wake_first.items():
            if task_id in proj.subagents:
                proj.wake_first[task_id] = first
        for task_id, flipped in keep.wake_flipped_at.items():
            if task_id in proj.subagents:
                proj.wake_flipped_at[task_id] = flipped
        proj.detaches = list(keep.detaches)
        proj.attached_at = dict(keep.attached_at)
        for task_id, at in keep.forwards.items():
            _note_forward(proj, task_id, at)
    return proj


def _apply_message(proj: Projection, msg: dict[str, Any]) -> None:
    proj.messages[str(msg.get("id"))] = msg
    _note_progress(proj, "message", msg)
    if msg.get("role") == "user" and isinstance(msg.get("text"), str) and \
            (task_id := forwarded_task(msg["text"])) is not None:
        _note_forward(proj, task_id, ts(msg.get("createdAt")))
    if msg.get("role") == "assistant" and isinstance(msg.get("text"), str):
        mid, at = str(msg.get("id")), ts(msg.get("createdAt"))
        _note_mentions(proj, msg["text"], at, mid)
        claim = claimed_children(msg["text"])
        if claim is not None:
            proj.claims[mid] = Claim(mid, string(msg.get("runId")), claim[0], claim[1], at)
        else:
            proj.claims.pop(mid, None)


def _note_forward(proj: Projection, task_id: str, at: datetime | None) -> None:
    known = proj.forwards.get(task_id)
    proj.forwards[task_id] = at if task_id not in proj.forwards or known is None else \
        min(known, at or known)


def _apply_turn_item(proj: Projection, item: dict[str, Any]) -> str:
    """Apply a turn item; "progress" when it moved nothing but the progress time."""
    _note_progress(proj, "turn-item", item)
    if _is_delegate_tool(item):
        _note_tool_call(proj, item)
        return "tool"
    if item.get("type") in ("run_interrupt_request", "run_interrupt_result"):
        _note_interrupt(proj, item)
        return "interrupt"
    return "progress"


def _note_interrupt(proj: Projection, item: dict[str, Any]) -> None:
    """Remember a run's interrupt request (the first) and its result (if one arrives)."""
    run_id = string(item.get("runId"))
    if run_id is None:
        return
    at = ts(item.get("startedAt")) or ts(item.get("updatedAt"))
    if item.get("type") == "run_interrupt_request":
        proj.interrupt_requests.setdefault(run_id, (at, string(item.get("message"))))
    else:
        proj.interrupt_results.setdefault(run_id, at)


_ENTITY_EVENTS = frozenset({
    "run.created", "run.updated", "run-attempt.created", "run-attempt.updated", "subagent.updated",
    "provider-session.attached", "provider-session.updated", "provider-thread.updated",
    "provider-turn.updated", "runtime-request.updated", "message.updated", "turn-item.updated",
})


def check_event(event: dict[str, Any]) -> None:
    """Reject an event the reducer cannot apply, before anything changes."""
    etype = event.get("type")
    if not isinstance(etype, str) or not etype:
        raise ModelInputError("thread event has no string `type`")
    if etype in _ENTITY_EVENTS and not string(obj(event.get("payload")).get("id")):
        raise ModelInputError(f"thread event {etype!r}: payload has no string `id`")


def apply_event(proj: Projection, event: dict[str, Any]) -> str:
    """Apply one domain event that passed `check_event` (the supervisor checks it before it
    changes anything); returns what it touched ("thread", "subagent", "session", ...;
    "progress": only the progress time, "message": a message and what its text says).
    The most frequent types are tested first; the event's time is read only where kept."""
    etype: str = event["type"]
    payload = obj(event.get("payload"))
    if etype == "turn-item.updated":
        return _apply_turn_item(proj, payload)
    if etype == "message.updated":
        _apply_message(proj, payload)
        return "message"
    if etype == "provider-turn.updated":
        proj.turns[str(payload.get("id"))] = payload
        _note_progress(proj, "provider-turn", payload)
        return "turn"
    if etype == "subagent.updated":
        upsert_subagent(proj, payload, ts(event.get("occurredAt")))
        return "subagent"
    if etype in ("run.created", "run.updated"):
        _upsert_run(proj, payload, ts(event.get("occurredAt")))
        return "run"
    if etype.startswith("thread."):
        if payload:
            proj.app_thread = payload
        return "thread"
    if etype.startswith("run-attempt."):
        proj.attempts[str(payload.get("id"))] = payload
        return "run"
    if etype in ("provider-session.attached", "provider-session.updated"):
        proj.provider_sessions[str(payload.get("id"))] = payload
        if etype == "provider-session.attached":
            proj.attached_at[str(payload.get("id"))] = ts(event.get("occurredAt"))
        return "session"
    if etype == "provider-session.detached":
        sid = string(payload.get("providerSessionId"))
        if sid:
            at = ts(payload.get("detachedAt")) or ts(event.get("occurredAt"))
            proj.detaches.append((sid, at, string(payload.get("reason"))))
        return "detached"
    if etype == "provider-thread.updated":
        proj.provider_threads[str(payload.get("id"))] = payload
        return "session"
    if etype == "runtime-request.updated":
        proj.runtime_requests[str(payload.get("id"))] = payload
        return "request"
    if etype == "plan.updated":
        _note_progress(proj, "plan", payload)
        return "progress"
    if etype.startswith("context-transfer."):
        _note_transfer(proj, payload)
        return "transfer"
    return "other"
