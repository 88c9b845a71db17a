"""A recording of a server that is not ours, written by hand from the documented protocol
(t3-protocol.md: shell/thread stream items, Effect RPC framing; docs/RECORDING.md: the lines).

The seed 004 incident as a nightly T3 Code server would have sent it: a parent and its
same-session Codex child, both done; the user settles the parent (the server detaches the
shared provider session), then checks in on the child; the child's run starts and nothing
more ever arrives for it. Nothing here comes from the reference backend's code.
"""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

T0 = datetime(2026, 10, 16, 18, 12, 50, tzinfo=UTC)
PARENT, CHILD = "thread-7f1c", "thread-9a02"
SESSION = "psess-codex-shared"
CHECKIN_S = 5.0
SERVER = {"environmentId": "env-nightly-arm", "label": "T3 Code", "platform":
          {"os": "linux", "arch": "arm64"}, "serverVersion": "0.1.1-nightly.20261016.3218",
          "orchestrationProtocolVersion": 2}


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def ms(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def shell_row(thread_id: str, title: str, parent: str | None, *, run: str, status: str,
              active: bool, settled: bool = False) -> dict[str, Any]:
    return {"id": thread_id, "projectId": "proj-1", "title": title,
            "providerInstanceId": "codex", "modelSelection": {"instanceId": "codex",
                                                              "model": "gpt-6.1-sol"},
            "lineage": {"parentThreadId": parent,
                        "relationshipToParent": "subagent" if parent else None,
                        "rootThreadId": parent},
            "createdAt": ms(-60), "updatedAt": ms(-30), "settledOverride":
                "settled" if settled else None,
            "latestRunId": run, "activeRunId": run if active else None,
            "activityRunStatus": "running" if active else None, "status": status}


def run_row(run_id: str, thread_id: str, provider_thread: str, status: str, started: float,
            done: float | None) -> dict[str, Any]:
    return {"id": run_id, "threadId": thread_id, "ordinal": int(run_id[-1]),
            "providerInstanceId": "codex", "providerThreadId": provider_thread,
            "status": status, "requestedAt": ms(started), "startedAt": ms(started),
            "completedAt": ms(done) if done is not None else None}


def event(seq: int, thread_id: str, kind: str, when: float, payload: dict[str, Any]) -> dict:
    return {"kind": "event", "sequence": seq, "event": {
        "id": f"evt-{seq}", "threadId": thread_id, "occurredAt": ms(when), "type": kind,
        "payload": payload}}


def chunk(rid: str, *values: dict[str, Any]) -> dict[str, Any]:
    return {"_tag": "Chunk", "requestId": rid, "values": list(values)}


def request(rid: str, tag: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"_tag": "Request", "id": rid, "tag": tag, "payload": payload, "headers": []}


def success(rid: str, value: Any) -> dict[str, Any]:
    return {"_tag": "Exit", "requestId": rid, "exit": {"_tag": "Success", "value": value}}


def lines() -> list[dict[str, Any]]:
    parent_pt = {"id": "pthread-parent", "providerSessionId": SESSION, "appThreadId": PARENT,
                 "status": "idle"}
    child_pt = {"id": "pthread-child", "providerSessionId": SESSION, "appThreadId": CHILD,
                "status": "idle"}
    session = {"id": SESSION, "driver": "codex", "providerInstanceId": "codex",
               "status": "ready", "createdAt": ms(-60)}
    task = {"id": "node-task-1", "threadId": PARENT, "runId": "run-p1", "origin": "app_owned",
            "childThreadId": CHILD, "title": "Reply READY", "status": "completed",
            "completionWake": "always", "completionDelivery": {"state": "delivered"},
            "startedAt": ms(-58), "completedAt": ms(-50)}
    parent_shell = shell_row(PARENT, "Create one child", None, run="run-p1",
                             status="completed", active=False)
    child_shell = shell_row(CHILD, "Reply READY", PARENT, run="run-c1", status="completed",
                            active=False)
    parent_projection = {"thread": parent_shell, "runs": [
        run_row("run-p1", PARENT, "pthread-parent", "completed", -59, -40)],
        "providerSessions": [session], "providerThreads": [parent_pt], "subagents": [task]}
    child_projection = {"thread": child_shell, "runs": [
        run_row("run-c1", CHILD, "pthread-child", "completed", -57, -50)],
        "providerThreads": [child_pt], "messages": [
            {"id": "msg-c1", "threadId": CHILD, "role": "assistant", "text": "READY",
             "createdAt": ms(-51), "updatedAt": ms(-50)}]}
    running = run_row("run-c2", CHILD, "pthread-child", "running", 20.02, None)
    return [
        {"t": at(0), "connection": "open", "server": SERVER},
        {"t": at(0.001), "out": request("1", "server.getConfig", {})},
        {"t": at(0.010), "in": success("1", {"environment": SERVER})},
        {"t": at(0.011), "out": request("2", "orchestration.subscribeShell",
                                         {"requestCompletionMarker": True})},
        {"t": at(0.030), "in": chunk("2", {"kind": "snapshot", "snapshot": {
            "snapshotSequence": 500, "projects": [], "threads": [parent_shell, child_shell],
            "archivedThreads": []}})},
        {"t": at(0.031), "in": chunk("2", {"kind": "synchronized"})},
        {"t": at(0.032), "out": request("3", "orchestration.subscribeThread",
                                         {"threadId": PARENT, "requestCompletionMarker": True})},
        {"t": at(0.033), "out": request("4", "orchestration.subscribeThread",
                                         {"threadId": CHILD, "requestCompletionMarker": True})},
        {"t": at(0.050), "in": [chunk("3", {"kind": "snapshot", "snapshotSequence": 500,
                                             "projection": parent_projection}),
                                chunk("3", {"kind": "synchronized"})]},
        {"t": at(0.060), "in": [chunk("4", {"kind": "snapshot", "snapshotSequence": 500,
                                             "projection": child_projection}),
                                chunk("4", {"kind": "synchronized"})]},
        # the user settles the parent; the server detaches the session the child shares
        {"t": at(4.200), "out": request("5", "orchestration.dispatchCommand", {
            "type": "thread.settle", "commandId": "cmd-settle", "threadId": PARENT})},
        {"t": at(4.209), "in": chunk("3", event(501, PARENT, "thread.settled", 4.208,
                                                dict(parent_shell, settledOverride="settled",
                                                     settledAt=ms(4.208))))},
        {"t": at(4.210), "in": chunk("2", {"kind": "thread.updated", "sequence": 501,
                                           "location": "active", "thread": dict(
                                               parent_shell, settledOverride="settled")})},
        {"t": at(4.216), "in": chunk("3", event(502, PARENT, "provider-session.detached",
                                                4.215, {"providerSessionId": SESSION,
                                                        "detachedAt": ms(4.215),
                                                        "reason": "Thread settled."}))},
        {"t": at(4.220), "in": success("5", {"sequence": 502})},
        # a check-in to the child: its run starts, and then nothing more ever comes
        {"t": at(20.0), "note": "checkin", "checkin": {
            "threadId": CHILD, "text": "Reply exactly PONG", "expect": "PONG",
            "sentAt": (T0 + timedelta(seconds=20)).isoformat(),
            "deadline": (T0 + timedelta(seconds=20 + CHECKIN_S)).isoformat(),
            "messageId": "msg-checkin", "commandId": "cmd-checkin"}},
        {"t": at(20.001), "out": request("6", "orchestration.dispatchCommand", {
            "type": "message.dispatch", "commandId": "cmd-checkin", "threadId": CHILD,
            "messageId": "msg-checkin", "text": "Reply exactly PONG", "attachments": [],
            "createdBy": "user", "creationSource": "web",
            "dispatchMode": {"type": "start_immediately"}})},
        {"t": at(20.010), "in": chunk("4", event(503, CHILD, "message.updated", 20.009, {
            "id": "msg-checkin", "threadId": CHILD, "role": "user", "createdBy": "user",
            "text": "Reply exactly PONG", "createdAt": ms(20.009),
            "updatedAt": ms(20.009)}))},
        {"t": at(20.012), "in": success("6", {"sequence": 503})},
        {"t": at(20.020), "in": chunk("4", event(504, CHILD, "run.updated", 20.02, running))},
        {"t": at(20.021), "in": chunk("2", {"kind": "thread.updated", "sequence": 504,
                                            "location": "active", "thread": shell_row(
                                                CHILD, "Reply READY", PARENT, run="run-c2",
                                                status="running", active=True)})},
        {"t": at(32.0), "in": {"_tag": "Pong"}},
        {"t": at(32.5), "connection": "closed", "reason": "stopped by client"},
    ]


def write(path: Path) -> Path:
    header = {"t3tuiRecording": 1, "t3tui": "0.1.0", "startedAt": at(0),
              "url": "https://t3.example:3773", "server": SERVER, "protocolVersion": 2}
    text = "\n".join(json.dumps(line) for line in [header, *lines()]) + "\n"
    path.write_bytes(gzip.compress(text.encode()))
    return path
