"""What a real connection can make of a recorded stream: frames lost, the shell and thread
streams interleaved differently, and resumes that fall back to a snapshot.

`perturbed` turns a fixture's frames into one such delivery, drawing every choice from
Hypothesis (so a failing delivery shrinks to a short one and can be kept as a regular test).
The snapshots it inserts are what a server would send on a resume that cannot replay: the
stream's whole state up to the point reached, the lost frames included.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

STALE = {"stale": True}  # the connection dropped: the supervisors are marked stale

# event type (or prefix) -> the key of a thread snapshot's projection that holds its entity
_KEYS = {
    "run.created": "runs", "run.updated": "runs", "run-attempt.created": "attempts",
    "run-attempt.updated": "attempts", "subagent.updated": "subagents",
    "provider-session.attached": "providerSessions", "provider-session.updated": "providerSessions",
    "provider-thread.updated": "providerThreads", "provider-turn.updated": "providerTurns",
    "runtime-request.updated": "runtimeRequests", "message.updated": "messages",
    "turn-item.updated": "turnItems", "plan.updated": "plans",
    "context-transfer.created": "contextTransfers", "context-transfer.updated": "contextTransfers",
}


def stream_of(frame: dict[str, Any]) -> str | None:
    return None if frame["stream"] == "shell" else frame["threadId"]


class _State:
    """One stream's state as a server would snapshot it, and its last sequence."""

    def __init__(self) -> None:
        self.seq: int | None = None
        self.thread: dict[str, Any] | None = None
        self.entities: dict[str, dict[str, dict[str, Any]]] = {}
        self.rows: dict[str, tuple[dict[str, Any], str]] = {}

    def take(self, item: dict[str, Any]) -> None:
        kind = item.get("kind")
        if kind == "snapshot" and "projection" in item:
            proj = item["projection"]
            self.thread = proj.get("thread")
            self.entities = {k: {str(e.get("id")): e for e in v} for k, v in proj.items()
                             if isinstance(v, list) and all(isinstance(e, dict) for e in v)}
            self.seq = item["snapshotSequence"]
        elif kind == "snapshot":
            snap = item["snapshot"]
            self.rows = {r["id"]: (r, "active") for r in snap.get("threads", [])}
            self.rows.update({r["id"]: (r, "archive") for r in snap.get("archivedThreads", [])})
            self.seq = snap["snapshotSequence"]
        elif kind == "event":
            event = item["event"]
            etype, payload = event["type"], event.get("payload") or {}
            if etype.startswith("thread.") and payload:
                self.thread = payload
            elif (key := _KEYS.get(etype)) is not None:
                self.entities.setdefault(key, {})[str(payload.get("id"))] = payload
        elif kind == "thread.updated":
            self.rows[item["thread"]["id"]] = (item["thread"], item.get("location") or "active")
        elif kind == "thread.removed":
            row = self.rows.get(item["threadId"])
            if row is not None and item.get("location") in (None, row[1]):
                del self.rows[item["threadId"]]
        if "sequence" in item:
            self.seq = item["sequence"]

    def snapshot(self, stream: str | None) -> dict[str, Any]:
        if stream is None:
            return {"stream": "shell", "item": {"kind": "snapshot", "snapshot": {
                "schemaVersion": 1, "snapshotSequence": self.seq, "projects": [],
                "threads": [r for r, loc in self.rows.values() if loc == "active"],
                "archivedThreads": [r for r, loc in self.rows.values() if loc == "archive"]}}}
        projection = {k: list(v.values()) for k, v in self.entities.items()}
        projection["thread"] = self.thread
        return {"stream": "thread", "threadId": stream, "item": {
            "kind": "snapshot", "snapshotSequence": self.seq, "projection": projection}}


def perturbed(frames: list[dict[str, Any]], data: st.DataObject) -> list[dict[str, Any]]:
    """One delivery of `frames`: each stream keeps its own order (the protocol's promise),
    streams interleave at random, frames are lost, and a resume may send a snapshot."""
    queues: dict[str | None, list[int]] = {}
    for i, frame in enumerate(frames):
        queues.setdefault(stream_of(frame), []).append(i)
    dropped = data.draw(st.sets(st.integers(0, len(frames) - 1), max_size=len(frames) // 3),
                        label="dropped")
    states: dict[str | None, _State] = {}
    out: list[dict[str, Any]] = []
    while any(queues.values()):
        live = [s for s, q in queues.items() if q]
        earliest = min(live, key=lambda s: queues[s][0])
        # mostly the recorded order; sometimes another stream's next frame overtakes it
        # (each choice shrinks towards the recorded delivery: no overtaking, loss or resume)
        stream = earliest if data.draw(st.integers(0, 3), label="overtake") != 3 else \
            data.draw(st.sampled_from(sorted(live, key=str)), label="stream")
        i = queues[stream].pop(0)
        state = states.setdefault(stream, _State())
        state.take(frames[i]["item"])
        if i not in dropped:
            out.append(frames[i])
        if state.seq is not None and data.draw(st.integers(0, 11), label="resume") == 11:
            out += [STALE, copy.deepcopy(state.snapshot(stream)),
                    {**({"stream": "shell"} if stream is None else
                        {"stream": "thread", "threadId": stream}), "item": {"kind": "synchronized"}}]
    return out
