"""Keep what a real T3 server keeps on disk, so t3tui's post-mortem readers can be tested:
a T3-layout SQLite state (`<state>/userdata/statev2.sqlite`: V2 events in
`orchestration_events` with `application_event_version = 2`, plus the provider thread / turn,
run and thread projection tables) and the provider protocol log
(`<state>/userdata/logs/provider/events.<thread>.log`, lines `[time] NTIVE|CANON|ORCH: json`).

NTIVE lines are written only for notifications the orchestration really received, so the
seed 004 fault leaves no NTIVE completion for the child's turn: the trail T3's triagers read.
Turned on by `t3tui serve --t3-state DIR` (off by default).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

from t3tui.backend.provider import Notification
from t3tui.backend.store import StoredEvent
from t3tui.protocol import format_ts

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS orchestration_events(
  sequence INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE,
  aggregate_kind TEXT NOT NULL, stream_id TEXT NOT NULL, stream_version INTEGER NOT NULL,
  event_type TEXT NOT NULL, occurred_at TEXT NOT NULL, command_id TEXT,
  causation_event_id TEXT, correlation_id TEXT, actor_kind TEXT NOT NULL,
  payload_json TEXT NOT NULL, metadata_json TEXT NOT NULL,
  application_event_version INTEGER NOT NULL DEFAULT 1,
  UNIQUE(aggregate_kind, stream_id, stream_version));
CREATE TABLE IF NOT EXISTS orchestration_v2_projection_threads(
  thread_id TEXT PRIMARY KEY, project_id TEXT, title TEXT, created_at TEXT, updated_at TEXT,
  archived_at TEXT, deleted_at TEXT, payload_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS orchestration_v2_projection_runs(
  run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, ordinal INTEGER, provider TEXT,
  provider_thread_id TEXT, status TEXT NOT NULL, requested_at TEXT, completed_at TEXT,
  payload_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS orchestration_v2_projection_provider_threads(
  provider_thread_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, provider TEXT,
  provider_session_id TEXT, status TEXT NOT NULL, updated_at TEXT, payload_json TEXT NOT NULL,
  driver TEXT, provider_instance_id TEXT);
CREATE TABLE IF NOT EXISTS orchestration_v2_projection_provider_turns(
  provider_turn_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, provider_thread_id TEXT,
  node_id TEXT, run_attempt_id TEXT, ordinal INTEGER, status TEXT NOT NULL, started_at TEXT,
  completed_at TEXT, payload_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS orchestration_v2_projection_metadata(
  projection_name TEXT PRIMARY KEY, schema_version INTEGER, last_sequence INTEGER, updated_at TEXT);
"""

_SEGMENT = re.compile(r"[^A-Za-z0-9._-]")


def thread_segment(thread_id: str) -> str:
    """The file-name segment of a thread's protocol log (unsafe characters as `_`)."""
    return _SEGMENT.sub("_", thread_id)[:200] or "_global"


class T3StateMirror:
    """Mirrors the engine's events into a T3-layout state dir (database + protocol log)."""

    def __init__(self, state_dir: Path) -> None:
        self.userdata = state_dir / "userdata"
        self.logs = self.userdata / "logs" / "provider"
        self.logs.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.userdata, 0o700)
        self.db_path = self.userdata / "statev2.sqlite"
        self._db = sqlite3.connect(self.db_path, isolation_level=None, check_same_thread=False)
        os.chmod(self.db_path, 0o600)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._versions: dict[str, int] = dict(self._db.execute(
            "SELECT stream_id, MAX(stream_version) FROM orchestration_events GROUP BY stream_id"))

    def log_path(self, thread_id: str) -> Path:
        return self.logs / f"events.{thread_segment(thread_id)}.log"

    def _log(self, thread_id: str, tag: str, at: str, body: dict[str, Any]) -> None:
        fd = os.open(self.log_path(thread_id), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(f"[{at}] {tag}: {json.dumps(body, separators=(',', ':'))}\n")

    # the engine's events (ORCH) -> event rows, projections, protocol log

    def on_event(self, stored: StoredEvent) -> None:
        try:
            self._write_event(stored)
        except (OSError, sqlite3.Error) as exc:  # a mirror must never stop the engine
            log.warning("cannot mirror event %s to the T3 state: %s", stored.sequence, exc)

    def _write_event(self, stored: StoredEvent) -> None:
        ev = stored.wire
        thread_id, kind, payload = ev["threadId"], ev["type"], ev.get("payload") or {}
        version = self._versions.get(thread_id, 0) + 1
        self._versions[thread_id] = version
        meta = {k: ev[k] for k in ("runId", "nodeId") if ev.get(k)}
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO orchestration_events(sequence, event_id, aggregate_kind, stream_id,"
                " stream_version, event_type, occurred_at, command_id, actor_kind, payload_json,"
                " metadata_json, application_event_version) VALUES (?,?,?,?,?,?,?,?,?,?,?,2)",
                (stored.sequence, ev["id"], "thread", thread_id, version, kind, ev["occurredAt"],
                 stored.command_id, "server", json.dumps(payload), json.dumps(meta)))
            self._project(thread_id, kind, payload)
            self._db.execute(
                "INSERT INTO orchestration_v2_projection_metadata VALUES ('thread-projections', 2, ?, ?)"
                " ON CONFLICT(projection_name) DO UPDATE SET last_sequence=excluded.last_sequence,"
                " updated_at=excluded.updated_at", (stored.sequence, ev["occurredAt"]))
        self._log(thread_id, "ORCH", ev["occurredAt"],
                  {"sequence": stored.sequence, "type": kind, "threadId": thread_id,
                   "runId": ev.get("runId"), "payload": payload})

    def _project(self, thread_id: str, kind: str, p: dict[str, Any]) -> None:
        body = json.dumps(p)
        if kind.startswith("thread.") and p.get("id") == thread_id:
            self._db.execute(
                "INSERT OR REPLACE INTO orchestration_v2_projection_threads VALUES (?,?,?,?,?,?,?,?)",
                (thread_id, p.get("projectId"), p.get("title"), p.get("createdAt"),
                 p.get("updatedAt"), p.get("archivedAt"), p.get("deletedAt"), body))
        elif kind in ("run.created", "run.updated"):
            self._db.execute(
                "INSERT OR REPLACE INTO orchestration_v2_projection_runs VALUES (?,?,?,?,?,?,?,?,?)",
                (p.get("id"), thread_id, p.get("ordinal"), p.get("providerInstanceId"),
                 p.get("providerThreadId"), p.get("status"), p.get("requestedAt"),
                 p.get("completedAt"), body))
        elif kind == "provider-thread.updated":
            self._db.execute(
                "INSERT OR REPLACE INTO orchestration_v2_projection_provider_threads"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                (p.get("id"), thread_id, p.get("providerInstanceId"), p.get("providerSessionId"),
                 p.get("status"), p.get("updatedAt"), body, p.get("driver"),
                 p.get("providerInstanceId")))
        elif kind == "provider-turn.updated":
            self._db.execute(
                "INSERT OR REPLACE INTO orchestration_v2_projection_provider_turns"
                " VALUES (?,?,?,?,?,?,?,?,?,?)",
                (p.get("id"), thread_id, p.get("providerThreadId"), p.get("nodeId"),
                 p.get("runAttemptId"), p.get("ordinal"), p.get("status"), p.get("startedAt"),
                 p.get("completedAt"), body))

    # what the provider sent (NTIVE) and its normalised form (CANON)

    def on_notification(self, thread_id: str, note: Notification) -> None:
        at = format_ts_now()
        method, params = _native(note)
        canon = {"type": f"turn.{note.kind}" if note.kind in ("completed", "failed", "interrupted")
                 else f"{note.kind}.updated", "threadId": thread_id,
                 "nativeThreadId": note.native_thread, "nativeTurnId": note.native_turn}
        try:
            self._log(thread_id, "NTIVE", at, {"method": method, "params": params})
            self._log(thread_id, "CANON", at, canon)
        except OSError as exc:
            log.warning("cannot write the protocol log of %s: %s", thread_id, exc)

    def close(self) -> None:
        self._db.close()


def format_ts_now() -> str:
    from datetime import UTC, datetime

    return format_ts(datetime.now(UTC))


def _native(note: Notification) -> tuple[str, dict[str, Any]]:
    """The notification as a Codex app-server JSON-RPC method and params."""
    ids = {"threadId": note.native_thread, "turnId": note.native_turn}
    if note.kind in ("completed", "failed", "interrupted"):
        return "turn/completed", {"threadId": note.native_thread,
                                  "turn": {"id": note.native_turn, "status": note.kind}}
    if note.kind == "message":
        return "item/completed", {**ids, "item": {"type": "agentMessage",
                                                  "text": str(note.data.get("text", ""))[:200]}}
    if note.kind == "request":
        return "item/commandExecution/requestApproval", ids
    return "item/updated", {**ids, "item": {"type": note.data.get("type")}}
