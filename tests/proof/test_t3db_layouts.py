"""T3 state layouts on hand-made databases: the older orchestration_v2_events table, and a
thread whose first events were compacted (seeded from its projection rows)."""

from __future__ import annotations

import json
import sqlite3

from t3tui.backend.t3state import SCHEMA
from t3tui.headless.postmortem import feed_frames
from t3tui.model import Supervisor
from t3tui.model.wire import ts
from t3tui.proof.t3db import EVENTS_V2, T3Db, frames

T = "2026-10-04T12:00:00.000Z"
THREAD = {"id": "thread-1", "title": "Compacted", "projectId": "p", "createdAt": T,
          "updatedAt": T, "lineage": {}, "modelSelection": {"instanceId": "codex", "model": "m"}}
RUN = {"id": "run-1", "threadId": "thread-1", "ordinal": 1, "status": "running",
       "requestedAt": T, "startedAt": T, "completedAt": None}


def test_a_compacted_thread_starts_from_its_projection(tmp_path) -> None:
    path = tmp_path / "statev2.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA)
        db.execute("INSERT INTO orchestration_v2_projection_threads VALUES (?,?,?,?,?,?,?,?)",
                   ("thread-1", "p", "Compacted", T, T, None, None, json.dumps(THREAD)))
        db.execute("INSERT INTO orchestration_events(sequence, event_id, aggregate_kind, stream_id,"
                   " stream_version, event_type, occurred_at, actor_kind, payload_json, metadata_json,"
                   " application_event_version) VALUES (7, 'e7', 'thread', 'thread-1', 7,"
                   " 'run.updated', ?, 'server', ?, '{}', 2)", (T, json.dumps(RUN)))
    with T3Db(path) as t3:
        found, first, last = frames(t3)
    assert first == last == ts(T).timestamp()
    snapshot = [f for f in found if f["item"].get("kind") == "snapshot" and f["stream"] == "thread"]
    assert snapshot and snapshot[0]["item"]["projection"]["thread"]["title"] == "Compacted"
    sup = Supervisor()
    feed_frames(sup, found)
    row = sup.view(ts(T)).row("thread-1")
    assert row is not None and row.title == "Compacted" and row.active_run_id == "run-1"
    assert not (tmp_path / "statev2.sqlite-wal").exists()  # opened without creating anything


def test_the_older_v2_events_table_is_read(tmp_path) -> None:
    path = tmp_path / "state.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(f"CREATE TABLE {EVENTS_V2}(sequence INTEGER PRIMARY KEY, event_id TEXT,"
                   " thread_id TEXT, run_id TEXT, event_type TEXT, occurred_at TEXT, payload_json TEXT)")
        db.execute(f"INSERT INTO {EVENTS_V2} VALUES (1, 'e1', 'thread-1', NULL, 'thread.created', ?, ?)",
                   (T, json.dumps(THREAD)))
        db.execute(f"INSERT INTO {EVENTS_V2} VALUES (2, 'e2', 'thread-1', NULL, 'thread.created', ?, ?)",
                   (T, "{broken"))
    with T3Db(path) as t3:
        assert t3.layout.events == EVENTS_V2
        found, _, _ = frames(t3)
        assert t3.skipped == 1
    sup = Supervisor()
    feed_frames(sup, found)
    assert sup.view(ts(T)).row("thread-1").title == "Compacted"
