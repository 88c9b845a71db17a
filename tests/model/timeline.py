"""Build frame fixtures: a global sequence, shell rows, thread events, and the same end state
folded into fresh snapshots (what a new `t3tui status` client would receive)."""

from __future__ import annotations

import copy
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from tests.model.factory import iso

FRAMES = Path(__file__).parent / "frames"

_LISTS = {
    "run.": "runs", "run-attempt.": "attempts", "subagent.": "subagents",
    "provider-session.attached": "providerSessions", "provider-session.updated": "providerSessions",
    "provider-thread.": "providerThreads", "provider-turn.": "providerTurns",
    "runtime-request.": "runtimeRequests", "message.": "messages", "turn-item.": "turnItems",
    "plan.": "plans", "context-transfer.": "contextTransfers", "node.": "nodes",
}


_PROJECTION_LISTS = (
    "runs", "attempts", "nodes", "subagents", "providerSessions", "providerThreads",
    "providerTurns", "runtimeRequests", "messages", "plans", "turnItems", "checkpointScopes",
    "checkpoints", "contextHandoffs", "contextTransfers",
)


def _list_for(etype: str) -> str | None:
    for prefix, key in _LISTS.items():
        if etype.startswith(prefix):
            return key
    return None


class Timeline:
    def __init__(self, description: str, start_sequence: int = 9000) -> None:
        self.description = description
        self.seq = start_sequence
        self.frames: list[dict[str, Any]] = []
        self.rows: dict[str, tuple[dict[str, Any], str]] = {}
        self.projections: dict[str, dict[str, Any]] = defaultdict(dict)
        self.subscribed: list[str] = []
        self.updated_at: dict[str, str] = {}
        self.frames.append({"stream": "shell", "item": {"kind": "snapshot", "snapshot": {
            "schemaVersion": 1, "snapshotSequence": self.seq, "projects": [], "threads": [],
            "archivedThreads": []}}})
        self.frames.append({"stream": "shell", "item": {"kind": "synchronized"}})

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def mark(self, name: str) -> None:
        self.frames.append({"mark": name})

    def shell(self, row: dict[str, Any], location: str = "active") -> None:
        row = copy.deepcopy(row)
        self.rows[row["id"]] = (row, location)
        self.frames.append({"stream": "shell", "item": {
            "kind": "thread.updated", "sequence": self._next(), "location": location, "thread": row}})

    def remove(self, thread_id: str, location: str = "active") -> None:
        self.rows.pop(thread_id, None)
        self.frames.append({"stream": "shell", "item": {
            "kind": "thread.removed", "sequence": self._next(), "location": location,
            "threadId": thread_id}})

    def subscribe(self, thread_id: str) -> None:
        """The client subscribes: a snapshot of the projection so far, then `synchronized`."""
        self.subscribed.append(thread_id)
        self.frames.append({"stream": "thread", "threadId": thread_id, "item": {
            "kind": "snapshot", "snapshotSequence": self.seq,
            "projection": self.projection(thread_id)}})
        self.frames.append({"stream": "thread", "threadId": thread_id,
                            "item": {"kind": "synchronized"}})

    def event(self, thread_id: str, etype: str, payload: dict[str, Any], t: float,
              run_id: str | None = None) -> None:
        payload = copy.deepcopy(payload)
        seq = self._next()
        event: dict[str, Any] = {"id": f"evt-{seq}", "threadId": thread_id, "occurredAt": iso(t),
                                 "type": etype, "payload": payload}
        if run_id:
            event["runId"] = run_id
        self._fold(thread_id, etype, payload)
        self.updated_at[thread_id] = event["occurredAt"]
        if thread_id in self.subscribed:
            self.frames.append({"stream": "thread", "threadId": thread_id,
                                "item": {"kind": "event", "sequence": seq, "event": event}})

    def _fold(self, thread_id: str, etype: str, payload: dict[str, Any]) -> None:
        proj = self.projections[thread_id]
        if etype.startswith("thread."):
            proj["thread"] = payload
            return
        key = _list_for(etype)
        if key is None:
            return
        items = proj.setdefault(key, [])
        for i, existing in enumerate(items):
            if existing.get("id") == payload.get("id"):
                items[i] = payload
                return
        items.append(payload)

    def projection(self, thread_id: str) -> dict[str, Any]:
        """The thread's projection so far, with every key of the V2 contract's projection."""
        folded = copy.deepcopy(self.projections[thread_id])
        proj: dict[str, Any] = {"thread": folded.pop("thread", None)}
        if proj["thread"] is None and thread_id in self.rows:
            row = self.rows[thread_id][0]
            proj["thread"] = {k: row[k] for k in (
                "createdBy", "creationSource", "id", "projectId", "title", "providerInstanceId",
                "modelSelection", "runtimeMode", "interactionMode", "branch", "worktreePath",
                "lineage", "forkedFrom", "activeProviderThreadId", "createdAt", "updatedAt",
                "archivedAt", "deletedAt", "settledOverride", "settledAt", "lastVisitedAt")}
        for key in _PROJECTION_LISTS:
            proj[key] = folded.get(key, [])
        proj["visibleTurnItems"] = [
            {"position": i, "visibility": "local", "sourceThreadId": item["threadId"],
             "sourceItemId": item["id"], "item": item}
            for i, item in enumerate(proj["turnItems"])]
        proj["updatedAt"] = self.updated_at.get(thread_id) or (proj["thread"] or {}).get("updatedAt")
        return proj

    def fresh(self) -> list[dict[str, Any]]:
        """The end state as a new client sees it: snapshots only."""
        active = [r for r, loc in self.rows.values() if loc == "active"]
        archived = [r for r, loc in self.rows.values() if loc == "archive"]
        frames: list[dict[str, Any]] = [
            {"stream": "shell", "item": {"kind": "snapshot", "snapshot": {
                "schemaVersion": 1, "snapshotSequence": self.seq, "projects": [],
                "threads": active, "archivedThreads": archived}}},
            {"stream": "shell", "item": {"kind": "synchronized"}},
        ]
        for tid in self.subscribed:
            frames.append({"stream": "thread", "threadId": tid, "item": {
                "kind": "snapshot", "snapshotSequence": self.seq, "projection": self.projection(tid)}})
            frames.append({"stream": "thread", "threadId": tid, "item": {"kind": "synchronized"}})
        return frames

    def write(self, name: str) -> Path:
        path = FRAMES / f"{name}.json"
        def block(frames: list[dict[str, Any]]) -> str:
            return "[\n" + ",\n".join(json.dumps(fr, separators=(",", ":")) for fr in frames) + "\n]"

        path.write_text(
            "{\"description\": " + json.dumps(self.description)
            + ",\n\"live\": " + block(self.frames) + ",\n\"fresh\": " + block(self.fresh()) + "}\n"
        )
        return path
