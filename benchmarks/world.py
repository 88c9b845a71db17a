"""A synthetic but wire-exact V2 world: a shell of N threads, a few delegation families with
their projections, and a burst of live items, as a T3 server would stream them.

Deterministic for a given `WorldSpec`, so a server process and the benchmark driver that
consume it build byte-identical streams without passing data between them.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

T0 = datetime(2026, 10, 4, 12, 0, 0, tzinfo=UTC)
SNAPSHOT_SEQUENCE = 100_000
OUTPUT = "collected 412 items\n" + "tests/test_x.py ...................... [ 9%]\n" * 3
PROSE = ("Reading the failing test and the diff around it; the fixture shares a temp dir "
         "between [workers] so I will isolate it before rerunning the suite.")


def iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@dataclass(frozen=True)
class WorldSpec:
    """How big the world is: `threads` in the shell, `parents` x `children` of them in
    delegation families (the threads a supervisor subscribes), `events` live burst items,
    `item_ms` of world time between them. With `probe_every` = k, every k-th item is a probe:
    a shell update retitling one of the `probe_targets` oldest top-level threads (the top of
    the tree) to `probe <n>`, so its arrival on screen can be seen."""

    threads: int
    events: int = 3000
    parents: int = 20
    children: int = 3
    seed: int = 7
    item_ms: float = 10.0
    probe_every: int = 0
    probe_targets: int = 10
    # top-level threads with a running run (no family): watched for their activity (issue 23)
    active: int = 0

    @property
    def family_size(self) -> int:
        return min(self.threads, self.parents * (1 + self.children))


@dataclass
class World:
    """Everything a server would stream, as wire dicts; `burst` holds (thread id or None for
    the shell, item) in global sequence order."""

    spec: WorldSpec
    shell_snapshot: dict[str, Any]
    thread_snapshots: dict[str, dict[str, Any]]
    burst: list[tuple[str | None, dict[str, Any]]]
    parents: list[str]
    children: dict[str, list[str]]
    standalone: list[str]
    end: datetime                       # the time of the last burst item
    last_sequence: dict[str | None, int] = field(default_factory=dict)

    @property
    def subscribed(self) -> list[str]:
        """The thread streams a supervisor asks for: every parent and every child."""
        return sorted(self.thread_snapshots)

    def probes(self) -> dict[str, int]:
        """Probe title -> its index in the burst."""
        return {item["thread"]["title"]: i for i, (stream, item) in enumerate(self.burst)
                if stream is None and item["thread"]["title"].startswith("probe ")}


def delegated_ids(session: str, request: str) -> tuple[str, str]:
    """(taskId, childThreadId) built the way delegation.md §3.4 describes."""
    command = quote(f"command:mcp:{session}:delegate-task:{request}", safe="")
    return f"node:delegated-task:{command}", f"thread:delegated-task:{command}"


def _shell_row(tid: str, title: str, created: datetime, *, parent: str | None = None,
               task_id: str | None = None, run: str | None = None,
               running: bool = False, settled: bool = False) -> dict[str, Any]:
    return {
        "createdBy": "agent" if parent else "user",
        "creationSource": "mcp" if parent else "web",
        "id": tid, "projectId": "project-1", "title": title, "providerInstanceId": "codex",
        "modelSelection": {"instanceId": "codex", "model": "gpt-5"},
        "runtimeMode": "full-access", "interactionMode": "default",
        "branch": "main", "worktreePath": "/home/user/project",
        "lineage": {"parentThreadId": parent,
                    "relationshipToParent": "subagent" if parent else None,
                    "rootThreadId": parent},
        "forkedFrom": {"type": "node", "nodeId": task_id} if task_id else None,
        "activeProviderThreadId": f"pt-{tid}" if running else None,
        "latestRunId": run, "latestRunRequestedAt": iso(created) if run else None,
        "latestRunStartedAt": iso(created) if run else None,
        "latestRunCompletedAt": None if running or not run else iso(created + timedelta(minutes=3)),
        "activeRunId": run if running else None,
        "activityRunStatus": "running" if running else None,
        "status": "running" if running else ("completed" if run else "idle"),
        "lastError": None, "pendingRuntimeRequest": None,
        "latestVisibleMessage": {"id": f"msg-{tid}", "role": "assistant", "text": PROSE,
                                 "updatedAt": iso(created)},
        "latestUserMessageAt": iso(created), "hasActionableProposedPlan": False,
        "pendingBackgroundTasks": [], "itemCount": 12, "visibleItemCount": 12,
        "createdAt": iso(created), "updatedAt": iso(created),
        "archivedAt": None, "deletedAt": None,
        "settledOverride": "settled" if settled else None,
        "settledAt": iso(created + timedelta(minutes=5)) if settled else None,
        "lastVisitedAt": None,
    }


def _app_thread(row: dict[str, Any]) -> dict[str, Any]:
    keys = ("createdBy", "creationSource", "id", "projectId", "title", "providerInstanceId",
            "modelSelection", "runtimeMode", "interactionMode", "branch", "worktreePath",
            "lineage", "forkedFrom", "activeProviderThreadId", "createdAt", "updatedAt",
            "archivedAt", "deletedAt", "settledOverride", "settledAt", "lastVisitedAt")
    return {k: row[k] for k in keys}


def _run(rid: str, tid: str, status: str, at: datetime) -> dict[str, Any]:
    return {"id": rid, "threadId": tid, "ordinal": 1, "providerInstanceId": "codex",
            "modelSelection": {"instanceId": "codex", "model": "gpt-5"},
            "providerThreadId": f"pt-{tid}", "userMessageId": f"msg-u-{rid}",
            "rootNodeId": f"node-{rid}", "activeAttemptId": f"att-{rid}", "status": status,
            "requestedAt": iso(at), "startedAt": iso(at), "completedAt": None,
            "checkpointId": None, "contextHandoffId": None}


def _attempt(rid: str, tid: str, at: datetime) -> dict[str, Any]:
    return {"id": f"att-{rid}", "runId": rid, "attemptOrdinal": 1, "rootNodeId": f"node-{rid}",
            "providerInstanceId": "codex", "providerThreadId": f"pt-{tid}", "providerTurnId": None,
            "reason": "initial", "status": "running", "startedAt": iso(at), "completedAt": None}


def _turn(rid: str, tid: str, at: datetime, used: int, updated: datetime) -> dict[str, Any]:
    return {"id": f"turn-{rid}", "providerThreadId": f"pt-{tid}", "nodeId": f"node-{rid}",
            "runAttemptId": f"att-{rid}", "nativeTurnRef": None, "ordinal": 1,
            "status": "running", "startedAt": iso(at), "completedAt": None,
            "tokenUsage": {"usedTokens": used, "maxTokens": 400000, "updatedAt": iso(updated)}}


def _provider_thread(tid: str, session: str, at: datetime) -> dict[str, Any]:
    return {"id": f"pt-{tid}", "driver": "codex", "providerInstanceId": "codex",
            "providerSessionId": session, "appThreadId": tid, "ownerNodeId": None,
            "nativeThreadRef": None, "nativeConversationHeadRef": None, "firstRunOrdinal": 1,
            "lastRunOrdinal": 1, "handoffIds": [], "forkedFrom": None,
            "pendingBackgroundTasks": [], "status": "active", "createdAt": iso(at),
            "updatedAt": iso(at)}


def _session(sid: str, at: datetime) -> dict[str, Any]:
    return {"id": sid, "driver": "codex", "providerInstanceId": "codex",
            "cwd": "/home/user/project", "model": "gpt-5",
            "capabilities": {"sessions": {"supportsMultipleProviderThreadsPerSession": True}},
            "status": "running", "createdAt": iso(at), "updatedAt": iso(at), "lastError": None}


def _subagent(task_id: str, parent: str, rid: str, child: str, title: str, at: datetime,
              progress: str | None = None) -> dict[str, Any]:
    body = {"id": task_id, "threadId": parent, "runId": rid, "parentNodeId": f"node-{rid}",
            "origin": "app_owned", "createdBy": "agent", "driver": "codex",
            "providerInstanceId": "codex", "providerThreadId": None, "childThreadId": child,
            "nativeTaskRef": None, "prompt": f"{title}: {PROSE}", "title": title,
            "model": "gpt-5", "completionWake": "always", "status": "running", "result": None,
            "startedAt": iso(at), "completedAt": None, "updatedAt": iso(at)}
    if progress is not None:
        body["progress"] = progress
    return body


def _turn_item(item_id: str, tid: str, rid: str, started: datetime, updated: datetime,
               done: bool) -> dict[str, Any]:
    return {"id": item_id, "threadId": tid, "runId": rid, "nodeId": None,
            "providerThreadId": f"pt-{tid}", "providerTurnId": f"turn-{rid}",
            "nativeItemRef": None, "parentItemId": None, "ordinal": 1, "title": "pytest -x",
            "startedAt": iso(started), "completedAt": iso(updated) if done else None,
            "updatedAt": iso(updated), "status": "completed" if done else "running",
            "type": "command_execution", "input": "python -m pytest -x tests/test_x.py",
            **({"output": OUTPUT, "exitCode": 0} if done else {})}


def _message(mid: str, tid: str, rid: str, text: str, created: datetime,
             updated: datetime) -> dict[str, Any]:
    return {"createdBy": "agent", "creationSource": "provider", "id": mid, "threadId": tid,
            "runId": rid, "nodeId": None, "role": "assistant", "text": text, "attachments": [],
            "streaming": True, "createdAt": iso(created), "updatedAt": iso(updated)}


def _projection(row: dict[str, Any], rid: str, session: str, at: datetime,
                subagents: list[dict[str, Any]]) -> dict[str, Any]:
    tid = row["id"]
    return {"thread": _app_thread(row), "runs": [_run(rid, tid, "running", at)],
            "attempts": [_attempt(rid, tid, at)], "nodes": [], "subagents": subagents,
            "providerSessions": [_session(session, at)],
            "providerThreads": [_provider_thread(tid, session, at)],
            "providerTurns": [_turn(rid, tid, at, 1000, at)], "runtimeRequests": [],
            "messages": [_message(f"msg-a-{rid}", tid, rid, PROSE, at, at)], "plans": [],
            "turnItems": [_turn_item(f"item-{rid}-0", tid, rid, at, at, True)],
            "checkpointScopes": [], "checkpoints": [], "contextHandoffs": [],
            "contextTransfers": [], "visibleTurnItems": [], "updatedAt": iso(at)}


def build_world(spec: WorldSpec) -> World:
    """The shell snapshot, the family projections and the live burst for `spec`."""
    start = T0 - timedelta(hours=2)
    rows: list[dict[str, Any]] = []
    parents: list[str] = []
    children: dict[str, list[str]] = {}
    snapshots: dict[str, dict[str, Any]] = {}
    family_rows: dict[str, dict[str, Any]] = {}
    n_parents = min(spec.parents, spec.threads // (1 + spec.children))
    for p in range(n_parents):
        pid, sid, prun = f"thread-parent-{p:03d}", f"psess-{p:03d}", f"run-p{p:03d}"
        created = start + timedelta(minutes=p)
        prow = _shell_row(pid, f"Parent task {p}", created, run=prun, running=True)
        # Recent activity, so only parent 0 (two hours silent) is flagged stuck.
        if p:
            prow["updatedAt"] = iso(T0 - timedelta(seconds=30))
        rows.append(prow)
        parents.append(pid)
        children[pid] = []
        tasks = []
        for c in range(spec.children):
            task_id, cid = delegated_ids(sid, f"req-{p:03d}-{c}")
            crun = f"run-c{p:03d}-{c}"
            title = f"Child {c} of parent {p}"
            crow = _shell_row(cid, title, created, parent=pid, task_id=task_id, run=crun,
                              running=True)
            crow["updatedAt"] = iso(T0 - timedelta(seconds=30))
            rows.append(crow)
            children[pid].append(cid)
            tasks.append(_subagent(task_id, pid, prun, cid, title, created))
            snapshots[cid] = _projection(crow, crun, sid, created, [])
            family_rows[cid] = crow
        snapshots[pid] = _projection(prow, prun, sid, created, tasks)
        family_rows[pid] = prow
    standalone = []
    all_rows = dict(family_rows)
    for i in range(min(spec.active, spec.threads - len(rows))):
        tid, run = f"thread-busy-{i:05d}", f"run-b{i:05d}"
        created = T0 - timedelta(seconds=60)  # busy and healthy: nothing to flag
        row = _shell_row(tid, f"Busy thread {i}", created, run=run, running=True)
        rows.append(row)
        all_rows[tid] = row
        snapshots[tid] = _projection(row, run, f"bsess-{i:05d}", created, [])
    for i in range(spec.threads - len(rows)):
        tid = f"thread-{i:05d}"
        created = start - timedelta(minutes=i)
        row = _shell_row(tid, f"Finished thread {i}", created, run=f"run-s{i:05d}",
                         settled=i % 3 == 0)
        rows.append(row)
        all_rows[tid] = row
        standalone.append(tid)
    random.Random(spec.seed + 1).shuffle(rows)  # a server's order, not tree order
    shell = {"kind": "snapshot", "snapshot": {
        "schemaVersion": 1, "snapshotSequence": SNAPSHOT_SEQUENCE, "projects": [],
        "threads": rows, "archivedThreads": []}}
    thread_items = {
        tid: {"kind": "snapshot", "snapshotSequence": SNAPSHOT_SEQUENCE, "projection": proj}
        for tid, proj in snapshots.items()
    }
    burst, end = _burst(spec, parents, children, all_rows, standalone, T0)
    last: dict[str | None, int] = {}
    for stream, item in burst:
        last[stream] = item["sequence"]
    return World(spec, shell, thread_items, burst, parents, children, standalone, end, last)


def _burst(spec: WorldSpec, parents: list[str],
           children: dict[str, list[str]], rows: dict[str, dict[str, Any]],
           standalone: list[str], at: datetime) -> tuple[list[tuple[str | None, dict]], datetime]:
    """Live work on the children (turn items, messages, provider turns, runs), echoed on the
    parents' task rows and on the shell; now and then a shell update of an unrelated thread.

    The family items are the same whatever the thread count (their own random stream), so
    two sizes can be compared item for item."""
    rng, pick = random.Random(spec.seed), random.Random(spec.seed + 2)
    out: list[tuple[str | None, dict[str, Any]]] = []
    seq = SNAPSHOT_SEQUENCE
    kids = [(p, c, i) for p in parents for i, c in enumerate(children[p])]
    step: dict[str, int] = {}
    probes = 0
    while len(out) < spec.events and (kids or standalone):
        seq += 1
        at += timedelta(milliseconds=spec.item_ms)
        if spec.probe_every and standalone and len(out) % spec.probe_every == spec.probe_every - 1:
            tid = standalone[-1 - probes % min(spec.probe_targets, len(standalone))]
            row = dict(rows[tid])
            row.update(title=f"probe {probes}", updatedAt=iso(at))
            rows[tid] = row
            out.append((None, {"kind": "thread.updated", "sequence": seq, "location": "active",
                               "thread": row}))
            probes += 1
            continue
        if rng.random() < 0.1 or not kids:
            if not standalone:
                continue
            tid = pick.choice(standalone)
            row = dict(rows[tid])
            row.update(updatedAt=iso(at), lastVisitedAt=iso(at))
            rows[tid] = row
            out.append((None, {"kind": "thread.updated", "sequence": seq, "location": "active",
                               "thread": row}))
            continue
        parent, child, index = rng.choice(kids)
        n = step[child] = step.get(child, 0) + 1
        p_no = int(parent.rsplit("-", 1)[1])
        crun, prun = f"run-c{p_no:03d}-{index}", f"run-p{p_no:03d}"
        kind = n % 6
        if kind == 0:
            task_id = rows[child]["forkedFrom"]["nodeId"]
            payload = _subagent(task_id, parent, prun, child, rows[child]["title"],
                                at - timedelta(minutes=5), progress=f"step {n}")
            payload["updatedAt"] = iso(at)
            out.append((parent, _event(seq, parent, prun, "subagent.updated", payload, at)))
        elif kind == 1:
            item = _turn_item(f"item-{crun}-{n}", child, crun, at, at, False)
            out.append((child, _event(seq, child, crun, "turn-item.updated", item, at)))
        elif kind == 2:
            item = _turn_item(f"item-{crun}-{n - 1}", child, crun, at - timedelta(seconds=2),
                              at, True)
            out.append((child, _event(seq, child, crun, "turn-item.updated", item, at)))
        elif kind == 3:
            msg = _message(f"msg-a-{crun}", child, crun, f"{PROSE} ({n})", at, at)
            out.append((child, _event(seq, child, crun, "message.updated", msg, at)))
        elif kind == 4:
            turn = _turn(crun, child, at - timedelta(minutes=5), 1000 + 50 * n, at)
            out.append((child, _event(seq, child, crun, "provider-turn.updated", turn, at)))
        else:
            row = dict(rows[child])
            row.update(updatedAt=iso(at), itemCount=12 + n, visibleItemCount=12 + n,
                       latestVisibleMessage={"id": f"msg-a-{crun}", "role": "assistant",
                                             "text": f"{PROSE} ({n})", "updatedAt": iso(at)})
            rows[child] = row
            out.append((None, {"kind": "thread.updated", "sequence": seq,
                               "location": "active", "thread": row}))
            if len(out) < spec.events:
                seq += 1
                run = _run(crun, child, "running", at - timedelta(minutes=5))
                out.append((child, _event(seq, child, crun, "run.updated", run, at)))
    return out, at


def _event(seq: int, tid: str, rid: str, etype: str, payload: dict[str, Any],
           at: datetime) -> dict[str, Any]:
    return {"kind": "event", "sequence": seq, "event": {
        "id": f"evt-{seq}", "threadId": tid, "runId": rid, "occurredAt": iso(at),
        "type": etype, "payload": payload}}
