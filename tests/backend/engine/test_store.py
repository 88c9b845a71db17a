"""The SQLite event store: one global sequence, atomic appends, receipts, reopen."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from t3tui.backend.store import EventStore, StoreError


def event(thread_id: str, n: int) -> dict:
    return {"id": f"evt-{n}", "threadId": thread_id, "occurredAt": "2026-10-04T12:00:00.000Z",
            "type": "run.updated", "payload": {"id": f"run-{n}", "status": "running"}}


def test_append_assigns_one_global_sequence_and_keeps_the_wire_form(tmp_path: Path) -> None:
    store = EventStore.open(tmp_path)
    first = store.append("c-1", [event("t1", 1), event("t2", 2)])
    second = store.append(None, [event("t1", 3)])
    assert [s.sequence for s in first + second] == [1, 2, 3]
    assert store.head == 3
    assert first[1].to_wire() == {"sequence": 2, "commandId": "c-1", "event": event("t2", 2)}
    assert first[0].event.payload.status == "running"
    assert [s.sequence for s in store.events_after(1)] == [2, 3]
    assert [s.sequence for s in store.events_after(0, limit=1)] == [1]
    assert [s.sequence for s in store.events_after(0, thread_id="t1")] == [1, 3]


def test_receipt_records_the_last_sequence_and_result(tmp_path: Path) -> None:
    store = EventStore.open(tmp_path)
    store.append("c-1", [event("t1", 1), event("t1", 2)], result={"threadId": "t1"})
    store.append("c-2", [])
    assert store.receipt("c-1").sequence == 2
    assert store.receipt("c-1").result == {"threadId": "t1"}
    assert store.receipt("c-2").sequence == 2
    assert store.receipt("c-3") is None


def test_a_failed_append_writes_nothing(tmp_path: Path) -> None:
    store = EventStore.open(tmp_path)
    store.append("c-1", [event("t1", 1)])
    with pytest.raises(StoreError):
        store.append("c-1", [event("t1", 2)])  # a second receipt for the same command
    assert store.head == 1
    assert [s.sequence for s in store.events_after(0)] == [1]
    store.append("c-2", [event("t1", 3)])
    assert store.head == 2


def test_reopen_serves_the_same_sequences_from_a_wal_database(tmp_path: Path) -> None:
    store = EventStore.open(tmp_path)
    written = [s.to_wire() for s in store.append("c-1", [event("t1", 1), event("t2", 2)])]
    store.close()
    reopened = EventStore.open(tmp_path)
    assert reopened.head == 2
    assert [s.to_wire() for s in reopened.events_after(0)] == written
    mode = sqlite3.connect(tmp_path / "events.sqlite3").execute("PRAGMA journal_mode").fetchone()
    assert mode[0] == "wal"


def test_a_failed_batch_takes_back_every_event_it_applied(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from t3tui.backend.engine.core import Core

    core = Core(EventStore.open(tmp_path), lambda: datetime(2026, 10, 4, tzinfo=UTC))
    session = {"id": "ps-1", "status": "running"}
    with core.batch() as b:
        b.add("t1", "thread.created", {"id": "t1", "title": "One"})
        b.add("t1", "provider-session.attached", session)
        b.add("t1", "run.created", {"id": "run-1", "status": "queued", "ordinal": 1})
    before = core.threads["t1"].to_wire()
    head = core.head

    with pytest.raises(RuntimeError), core.batch() as b:
        b.add("t1", "thread.settled", {"id": "t1", "title": "Renamed"})
        b.add("t1", "run.updated", {"id": "run-1", "status": "running", "ordinal": 1})
        b.add("t1", "run.created", {"id": "run-2", "status": "queued", "ordinal": 2})
        b.add("t1", "run.updated", {"id": "run-2", "status": "running", "ordinal": 2})
        b.add("t1", "provider-session.detached", {"providerSessionId": "ps-1"})
        b.add("t2", "thread.created", {"id": "t2", "title": "Two"})
        raise RuntimeError("the handler failed")

    assert core.threads["t1"].to_wire() == before
    assert core.threads["t1"].get("providerSessions", "ps-1") is session
    assert "t2" not in core.threads
    assert core.head == head and [s.sequence for s in core.store.events_after(0)] == [1, 2, 3]


def test_appends_are_read_back_before_and_after_their_group_is_committed(tmp_path: Path) -> None:
    store = EventStore.open(tmp_path)
    # hold SQLite's write lock: the writer cannot commit until it is released
    other = sqlite3.connect(tmp_path / "events.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    store.append("c-1", [event("t1", 1), event("t2", 2)], result={"threadId": "t1"})
    store.append(None, [event("t1", 3)])
    assert store.head == 3 and store.ticket == 2 and store.written == 0
    assert [s.sequence for s in store.events_after(1)] == [2, 3]
    assert [s.sequence for s in store.events_after(0, thread_id="t1")] == [1, 3]
    assert [s.sequence for s in store.events_after(0, limit=2)] == [1, 2]
    assert store.receipt("c-1").sequence == 2
    with pytest.raises(StoreError):
        store.append("c-1", [event("t1", 4)])  # a command is stored once, committed or not
    other.execute("COMMIT")
    store.close()  # commits what was appended
    reopened = EventStore.open(tmp_path)
    assert [s.sequence for s in reopened.events_after(0)] == [1, 2, 3]
    assert reopened.receipt("c-1").result == {"threadId": "t1"}


def test_a_store_that_cannot_commit_refuses_every_later_append(tmp_path: Path) -> None:
    store = EventStore.open(tmp_path)
    # another writer took sequence 1 behind the store's back: its commit must fail
    other = sqlite3.connect(tmp_path / "events.sqlite3")
    other.execute("INSERT INTO events VALUES (1, NULL, 't9', '{}')")
    other.commit()
    store.append(None, [event("t1", 1)])
    store.writer.close()  # the writer thread has stopped after its failed commit
    assert store.written == 0 and "UNIQUE" in (store.writer.failed or "")
    with pytest.raises(StoreError):
        store.append(None, [event("t1", 2)])
