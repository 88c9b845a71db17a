"""One thread's projection and the §9.2 reducer that builds it from events.

The same reducer runs live and on restart, so a replayed store rebuilds exactly the state that
was served. Entities are replaced whole, never mutated, so taking an event back (`undo`) is exact.
"""

from __future__ import annotations

from typing import Any

from t3tui.protocol import THREAD_EVENT_TYPES

ACTIVE_RUN = frozenset({"preparing", "queued", "starting", "running", "waiting"})
EXECUTING_RUN = frozenset({"preparing", "starting", "running", "waiting"})
TERMINAL_RUN = frozenset({"completed", "interrupted", "failed", "cancelled", "rolled_back"})
TERMINAL_TASK = frozenset({"completed", "failed", "cancelled", "interrupted"})

COLLECTIONS = (
    "runs",
    "attempts",
    "nodes",
    "subagents",
    "providerSessions",
    "providerThreads",
    "providerTurns",
    "runtimeRequests",
    "messages",
    "plans",
    "turnItems",
    "checkpointScopes",
    "checkpoints",
    "contextHandoffs",
    "contextTransfers",
)

EVENT_COLLECTION: dict[str, str] = {
    "run.created": "runs",
    "run.updated": "runs",
    "run-attempt.created": "attempts",
    "run-attempt.updated": "attempts",
    "node.updated": "nodes",
    "subagent.updated": "subagents",
    "provider-session.attached": "providerSessions",
    "provider-session.updated": "providerSessions",
    "provider-thread.updated": "providerThreads",
    "provider-turn.updated": "providerTurns",
    "runtime-request.updated": "runtimeRequests",
    "message.updated": "messages",
    "turn-item.updated": "turnItems",
    "plan.updated": "plans",
    "checkpoint-scope.created": "checkpointScopes",
    "checkpoint.captured": "checkpoints",
    "context-handoff.updated": "contextHandoffs",
    "context-transfer.created": "contextTransfers",
    "context-transfer.updated": "contextTransfers",
}


# what one `apply` changed: (thread, updated_at, collection, entity id, previous entity)
Undo = tuple[Any, Any, str | None, Any, Any]
_ABSENT: Any = object()  # an entity that was not there before


class ThreadState:
    """The projection of one thread, kept as id-keyed maps in first-seen order."""

    __slots__ = ("coll", "thread", "updated_at")

    def __init__(self) -> None:
        self.thread: dict[str, Any] | None = None
        self.coll: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in COLLECTIONS}
        self.updated_at: str | None = None

    def apply(self, event: dict[str, Any]) -> Undo:
        """Reduce one event (wire dict) into this projection; returns what `undo` needs to
        take it back (a batch that fails undoes its events, newest first)."""
        etype = event["type"]
        payload = event.get("payload")
        undo: Undo = (self.thread, self.updated_at, None, None, None)
        if etype in THREAD_EVENT_TYPES:
            self.thread = payload
        elif etype == "provider-session.detached":
            sid = payload["providerSessionId"]
            sessions = self.coll["providerSessions"]
            session = sessions.get(sid)
            if session is not None:
                undo = (self.thread, self.updated_at, "providerSessions", sid, session)
                sessions[sid] = {**session, "status": "stopped",
                                 "updatedAt": payload.get("detachedAt")}
        else:
            name = EVENT_COLLECTION.get(etype)
            if name is not None and isinstance(payload, dict) and "id" in payload:
                items = self.coll[name]
                key = payload["id"]
                undo = (self.thread, self.updated_at, name, key, items.get(key, _ABSENT))
                items[key] = payload
        self.updated_at = event.get("occurredAt") or self.updated_at
        return undo

    def undo(self, token: Undo) -> None:
        """Take back one `apply` (entities are replaced whole, so the old ones are exact)."""
        self.thread, self.updated_at, name, key, previous = token
        if name is not None:
            if previous is _ABSENT:
                self.coll[name].pop(key, None)
            else:
                self.coll[name][key] = previous

    # reads

    def get(self, name: str, entity_id: str | None) -> dict[str, Any] | None:
        return None if entity_id is None else self.coll[name].get(entity_id)

    def values(self, name: str) -> list[dict[str, Any]]:
        return list(self.coll[name].values())

    def runs(self) -> list[dict[str, Any]]:
        return sorted(self.coll["runs"].values(), key=lambda r: r["ordinal"])

    def latest_run(self) -> dict[str, Any] | None:
        runs = self.runs()
        return runs[-1] if runs else None

    def executing_run(self) -> dict[str, Any] | None:
        """The run that holds the provider (not merely queued)."""
        return next((r for r in self.runs() if r["status"] in EXECUTING_RUN), None)

    def queued_runs(self) -> list[dict[str, Any]]:
        queued = [r for r in self.runs() if r["status"] == "queued"]
        return sorted(queued, key=lambda r: (r.get("queuePosition") or 0, r["ordinal"]))

    def has_active_run(self) -> bool:
        return any(r["status"] in ACTIVE_RUN for r in self.coll["runs"].values())

    def pending_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.coll["runtimeRequests"].values() if r["status"] == "pending"]

    def live_sessions(self) -> list[dict[str, Any]]:
        return [s for s in self.coll["providerSessions"].values() if s["status"] != "stopped"]

    def parent_id(self) -> str | None:
        lineage = (self.thread or {}).get("lineage") or {}
        if lineage.get("relationshipToParent") == "subagent":
            return lineage.get("parentThreadId")
        return None

    def to_wire(self) -> dict[str, Any]:
        items = list(self.coll["turnItems"].values())
        wire: dict[str, Any] = {"thread": self.thread}
        for name in COLLECTIONS:
            wire[name] = self.runs() if name == "runs" else list(self.coll[name].values())
        wire["visibleTurnItems"] = [
            {
                "position": i,
                "visibility": "local",
                "sourceThreadId": item["threadId"],
                "sourceItemId": item["id"],
                "item": item,
            }
            for i, item in enumerate(items)
        ]
        wire["updatedAt"] = self.updated_at
        return wire
