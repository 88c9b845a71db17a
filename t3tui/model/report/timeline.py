"""The events that matter for a triage timeline, read from stream items as they are applied.

`TimelineTracker.feed(thread_id, raw_item, at)` sees every applied item (wire dicts) with the
moment it was received (`at`, epoch seconds on the replay clock). It keeps each entity's last
status and notes a `Moment` when one changes: runs, provider turns and sessions (attach,
status, detach), delegated tasks (status, delivery, wake), approvals, settle/unsettle/archive,
user messages and finished assistant replies. Entities first seen in a snapshot are noted at
their own server timestamps (`server=True`), so a report on a fresh connection still has a
history. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from t3tui.model.taskids import client_request_id
from t3tui.model.wire import ts

# kind -> order among moments at the same instant (cause before effect)
KIND_ORDER = {
    "connection": 0, "command": 1, "checkin": 2, "settle": 3, "unsettle": 3, "archive": 3,
    "detach": 4, "session": 5, "message": 6, "run": 7, "turn": 8, "record": 8, "task": 9,
    "delivery": 10,
    "request": 11, "outcome": 12, "deadline": 13, "verdict": 14, "finding": 15, "cleared": 16,
}
THREAD_EVENTS = {"thread.settled": ("settle", "settled"),
                 "thread.unsettled": ("unsettle", "unsettled"),
                 "thread.archived": ("archive", "archived"),
                 "thread.unarchived": ("archive", "unarchived")}
MESSAGE_CHARS = 200


@dataclass(frozen=True)
class Moment:
    """One timeline line. `text` may hold agent text: renderers quote it. `server`: the time
    is a server timestamp from a snapshot, not the moment it was received."""

    at: float
    kind: str
    thread_id: str | None
    text: str
    server: bool = False
    detail: str = ""  # agent text (a message), rendered quoted

    @property
    def order(self) -> tuple[float, int]:
        return (self.at, KIND_ORDER.get(self.kind, 50))


def _epoch(value: Any) -> float | None:
    at = ts(value) if isinstance(value, str) else None
    return at.timestamp() if at is not None else None


def _label(value: Any, fallback: str = "?") -> str:
    return value if isinstance(value, str) and value else fallback


class TimelineTracker:
    """Collects `moments` from fed items; see the module docstring."""

    def __init__(self) -> None:
        self.moments: list[Moment] = []
        self._seen: dict[tuple[str, str], tuple[Any, ...]] = {}

    def feed(self, thread_id: str | None, raw: Any, at: float) -> None:
        if thread_id is None or not isinstance(raw, dict):
            return  # the shell repeats what the thread streams say, in less detail
        kind = raw.get("kind")
        if kind == "snapshot":
            projection = raw.get("projection")
            if isinstance(projection, dict):
                self._snapshot(thread_id, projection, at)
        elif kind == "event":
            event = raw.get("event")
            if isinstance(event, dict):
                self._event(thread_id, event, at)

    # -- snapshots: first sight at server time, later changes at receive time --

    def _snapshot(self, thread_id: str, projection: dict[str, Any], at: float) -> None:
        thread = projection.get("thread")
        if isinstance(thread, dict):
            self._thread_row(thread_id, thread, at)
        for key, handler in (("providerSessions", self._session), ("runs", self._run),
                             ("providerTurns", self._turn), ("subagents", self._task),
                             ("runtimeRequests", self._request), ("messages", self._message)):
            rows = projection.get(key)
            for row in rows if isinstance(rows, list) else ():
                if isinstance(row, dict):
                    handler(thread_id, row, at, snapshot=True)

    def _thread_row(self, thread_id: str, thread: dict[str, Any], at: float) -> None:
        state = (thread.get("settledOverride"), bool(thread.get("archivedAt")))
        before = self._seen.get(("thread", thread_id))
        self._seen[("thread", thread_id)] = state
        if before == state:
            return
        settled, archived = state
        if settled == "settled" and (before is None or before[0] != "settled"):
            when = _epoch(thread.get("settledAt")) if before is None else None
            self._add(when or at, "settle", thread_id, "thread settled", server=when is not None)
        if archived and (before is None or not before[1]):
            when = _epoch(thread.get("archivedAt")) if before is None else None
            self._add(when or at, "archive", thread_id, "thread archived", server=when is not None)

    # -- events --

    def _event(self, thread_id: str, event: dict[str, Any], at: float) -> None:
        kind = event.get("type")
        payload = event.get("payload")
        payload = payload if isinstance(payload, dict) else {}
        if kind in THREAD_EVENTS:
            what, text = THREAD_EVENTS[kind]
            before = self._seen.get(("thread", thread_id), (None, False))
            settled = "settled" if kind == "thread.settled" else (
                None if kind == "thread.unsettled" else before[0])
            archived = kind == "thread.archived" or (before[1] and kind != "thread.unarchived")
            self._seen[("thread", thread_id)] = (settled, archived)
            self._add(at, what, thread_id, f"thread {text}")
        elif kind == "provider-session.detached":
            sid = _label(payload.get("providerSessionId"))
            reason = payload.get("reason")
            self._seen[("session", sid)] = ("detached",)
            self._add(at, "detach", thread_id, f"provider session {sid} detached"
                      + (f" ({reason})" if isinstance(reason, str) and reason else ""))
        elif kind in ("provider-session.attached", "provider-session.updated"):
            self._session(thread_id, payload, at, attached=kind.endswith("attached"))
        elif kind in ("run.created", "run.updated"):
            self._run(thread_id, payload, at)
        elif kind == "provider-turn.updated":
            self._turn(thread_id, payload, at)
        elif kind == "subagent.updated":
            self._task(thread_id, payload, at)
        elif kind == "runtime-request.updated":
            self._request(thread_id, payload, at)
        elif kind == "message.updated":
            self._message(thread_id, payload, at)

    # -- entities (a snapshot row or an event payload) --

    def _changed(self, key: tuple[str, str], state: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """The previous state when it differs (an empty tuple: first sight), else None."""
        before = self._seen.get(key)
        if before == state:
            return None
        self._seen[key] = state
        return before or ()

    def _session(self, thread_id: str, row: dict[str, Any], at: float, *,
                 snapshot: bool = False, attached: bool = False) -> None:
        sid = _label(row.get("id"))
        status = _label(row.get("status"))
        before = self._changed(("session", sid), (status,))
        if before is None:
            return
        if before == () and snapshot:
            when = _epoch(row.get("createdAt"))
            if when is not None:
                self._add(when, "session", thread_id, f"provider session {sid} attached "
                          f"({status} now)", server=True)
            return
        verb = "attached" if attached and before == () else status
        self._add(at, "session", thread_id, f"provider session {sid} {verb}")

    def _run(self, thread_id: str, row: dict[str, Any], at: float, *,
             snapshot: bool = False) -> None:
        rid = _label(row.get("id"))
        status = _label(row.get("status"))
        before = self._changed(("run", rid), (status,))
        if before is None:
            return
        name = f"run {row.get('ordinal')}" if isinstance(row.get("ordinal"), int) else f"run {rid}"
        if before == () and snapshot:
            for field, verb in (("startedAt", "started"), ("completedAt", status)):
                when = _epoch(row.get(field))
                if when is not None:
                    self._add(when, "run", thread_id, f"{name} {verb}", server=True)
            return
        self._add(at, "run", thread_id, f"{name} {status}")

    def _turn(self, thread_id: str, row: dict[str, Any], at: float, *,
              snapshot: bool = False) -> None:
        tid = _label(row.get("id"))
        status = _label(row.get("status"))
        before = self._changed(("turn", tid), (status,))
        if before is None:
            return
        if before == () and snapshot:
            when = _epoch(row.get("completedAt")) or _epoch(row.get("startedAt"))
            if when is not None:
                self._add(when, "turn", thread_id, f"provider turn {status}", server=True)
            return
        self._add(at, "turn", thread_id, f"provider turn {status}")

    def _task(self, thread_id: str, row: dict[str, Any], at: float, *,
              snapshot: bool = False) -> None:
        task = _label(row.get("id"))
        child = row.get("childThreadId") if isinstance(row.get("childThreadId"), str) else None
        delivery = row.get("completionDelivery")
        delivery = delivery.get("state") if isinstance(delivery, dict) else None
        state = (row.get("status"), delivery, row.get("completionWake"))
        before = self._changed(("task", task), state)
        if before is None:
            return
        name = f"task {client_request_id(task) or task}"
        if before == () and snapshot:
            for field, verb in (("startedAt", "started"), ("completedAt", row.get("status"))):
                when = _epoch(row.get(field))
                if when is not None:
                    self._add(when, "task", child or thread_id, f"{name} {verb}", server=True)
            return
        old = before or (None, None, None)
        if state[0] != old[0]:
            self._add(at, "task", child or thread_id, f"{name} {_label(state[0])}")
        if state[1] != old[1] and state[1] is not None:
            self._add(at, "delivery", child or thread_id, f"{name} delivery {state[1]}")
        if state[2] != old[2] and old != (None, None, None) and state[2] is not None:
            self._add(at, "task", child or thread_id, f"{name} wake policy {state[2]}")

    def _request(self, thread_id: str, row: dict[str, Any], at: float, *,
                 snapshot: bool = False) -> None:
        rid = _label(row.get("id"))
        status = _label(row.get("status"))
        before = self._changed(("request", rid), (status,))
        if before is None:
            return
        kind = _label(row.get("kind"), "request")
        when = _epoch(row.get("createdAt")) if before == () and snapshot else None
        self._add(when or at, "request", thread_id, f"{kind} {status}", server=when is not None)

    def _message(self, thread_id: str, row: dict[str, Any], at: float, *,
                 snapshot: bool = False) -> None:
        mid = _label(row.get("id"))
        role = row.get("role")
        done = not row.get("streaming")
        before = self._changed(("message", mid), (done,))
        if before is None or (before and before[0]):
            return  # seen finished already
        if role == "user" and before == ():
            who = "user message" if row.get("createdBy") in (None, "user") else "message"
        elif role == "assistant" and done:
            who = "assistant replied"
        else:
            return
        when = _epoch(row.get("createdAt")) if snapshot else None
        text = row.get("text") if isinstance(row.get("text"), str) else ""
        if len(text) > MESSAGE_CHARS:
            text = text[:MESSAGE_CHARS] + "…"
        self._add(when or at, "message", thread_id, who, server=when is not None, detail=text)

    def _add(self, at: float, kind: str, thread_id: str | None, text: str, *,
             server: bool = False, detail: str = "") -> None:
        self.moments.append(Moment(at, kind, thread_id, text, server, detail))
