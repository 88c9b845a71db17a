"""Hostile commands and a damaged store never poison the reference backend.

Over real sockets: fuzzed `dispatchCommand` payloads each get a typed answer naming what is
wrong and the socket stays up; lone surrogates are refused where they enter; a stored event
that cannot be used is skipped and reported while the others flow, before and after a
restart; a corrupt row stops `serve` with a message that names the file, the row and the way
out.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from t3tui.backend.store import DB_FILE
from t3tui.backend.testing import running_backend
from tests.backend.transport.commands import message, thread_create
from tests.backend.transport.fuzzcommands import fuzzed_commands
from tests.backend.transport.rawclient import RawRpc

pytestmark = pytest.mark.e2e

SHELL = "orchestration.subscribeShell"
THREAD = "orchestration.subscribeThread"
DISPATCH = "orchestration.dispatchCommand"


async def subscribes(client: RawRpc, thread_id: str) -> tuple[dict[str, Any], list[dict]]:
    """A new shell subscription and a replay of `thread_id` both reach `synchronized`."""
    shell = await client.request(SHELL, {"requestCompletionMarker": True})
    [snapshot, _] = await client.items_until(shell, lambda i: i["kind"] == "synchronized")
    thread = await client.request(
        THREAD, {"threadId": thread_id, "afterSequence": 0, "requestCompletionMarker": True})
    events = await client.items_until(thread, lambda i: i["kind"] == "synchronized")
    return snapshot["snapshot"], events[:-1]


def failure_text(exit_: dict[str, Any]) -> str:
    assert exit_["_tag"] == "Failure", exit_
    [cause] = exit_["cause"]
    if cause["_tag"] == "Fail":
        assert cause["error"]["_tag"] == "OrchestrationV2DispatchCommandError", cause
        return str(cause["error"]["message"])
    assert cause["_tag"] == "Die", cause
    return str(cause["defect"])


async def test_fuzzed_commands_get_typed_answers_and_never_poison_the_backend(tmp_path):
    async with running_backend(data_dir=tmp_path) as backend:
        async with await RawRpc.open(backend.url, backend.token) as client:
            await client.ok(DISPATCH, thread_create("thread-fz"))
            await client.ok(DISPATCH, message("thread-fz", "before the fuzz"))
            outcomes = {"ok": 0, "refused": 0}
            for payload in fuzzed_commands(seed=16, count=300, thread_id="thread-fz"):
                exit_ = await client.call(DISPATCH, payload, timeout=10)
                if exit_["_tag"] == "Success":
                    outcomes["ok"] += 1
                    continue
                text = failure_text(exit_)
                assert text and "Internal server error" not in text, (text, payload)
                outcomes["refused"] += 1
            assert outcomes["refused"] > 250
            # the same socket still answers, and never got a connection-level Defect
            assert await client.ok("server.probe", {}) == {}
            assert not [f for f in client.frames if f["_tag"] == "Defect"]
        async with await RawRpc.open(backend.url, backend.token) as fresh:
            snapshot, events = await subscribes(fresh, "thread-fz")
        assert "thread-fz" in {t["id"] for t in snapshot["threads"]}
        head = backend.engine.head
    async with running_backend(data_dir=tmp_path) as again:  # and after a restart
        assert again.engine.head >= head
        async with await RawRpc.open(again.url, again.token) as client:
            snapshot, replayed = await subscribes(client, "thread-fz")
    assert "thread-fz" in {t["id"] for t in snapshot["threads"]}
    assert [e["sequence"] for e in replayed][: len(events)] == [e["sequence"] for e in events]


@pytest.mark.parametrize("field,value", [
    ("text", "gpt-\ud800"), ("commandId", "c-\udfff"), ("messageId", "\ud800")])
async def test_a_lone_surrogate_is_refused_at_the_command_boundary_naming_the_field(
    backend, field: str, value: str
) -> None:
    async with await RawRpc.open(backend.url, backend.token) as client:
        await client.ok(DISPATCH, thread_create("thread-s"))
        head = backend.engine.head
        payload = {**message("thread-s", "hello"), field: value}
        text = failure_text(await client.call(DISPATCH, payload))
        assert f"payload.{field}" in text and "lone surrogate" in text, text
        assert backend.engine.head == head  # nothing stored
        # an unknown tag holding one is a Defect, and the socket lives on
        await client.send({"_tag": "Request", "id": "9", "tag": "x\ud800", "payload": {},
                           "headers": []})
        defect = await client.next_control()
        assert defect["_tag"] == "Defect" and "lone surrogate" in defect["defect"]
        assert await client.ok("server.probe", {}) == {}
        snapshot, _ = await subscribes(client, "thread-s")
        assert "thread-s" in {t["id"] for t in snapshot["threads"]}


def tamper(data_dir: Path, rows: list[tuple[str, str]]) -> list[int]:
    """Append raw event rows (thread id, event text) as a damaged or older store holds."""
    db = sqlite3.connect(data_dir / DB_FILE)
    try:
        head = db.execute("SELECT MAX(sequence) FROM events").fetchone()[0]
        sequences = [head + n + 1 for n in range(len(rows))]
        db.executemany("INSERT INTO events (sequence, command_id, thread_id, event) "
                       "VALUES (?, NULL, ?, ?)",
                       [(s, t, e) for s, (t, e) in zip(sequences, rows, strict=True)])
        db.commit()
    finally:
        db.close()
    return sequences


@pytest.mark.serves_tampered_store
async def test_a_stored_event_that_cannot_be_used_is_skipped_and_reported_the_others_flow(
    tmp_path, caplog
):
    async with (running_backend(data_dir=tmp_path) as first,
                await RawRpc.open(first.url, first.token) as client):
        await client.ok(DISPATCH, thread_create("thread-ok"))
        await client.ok(DISPATCH, thread_create("thread-bad"))
    good_event = json.loads(sqlite3.connect(tmp_path / DB_FILE).execute(
        "SELECT event FROM events WHERE thread_id = 'thread-bad' ORDER BY sequence LIMIT 1"
    ).fetchone()[0])
    surrogate = {**good_event, "payload": {**good_event["payload"], "title": "poison \ud800"}}
    bad = tamper(tmp_path, [
        ("thread-bad", json.dumps(surrogate)),                       # written by an old version
        ("thread-bad", json.dumps({"type": "thread.created", "threadId": "thread-bad",
                                   "payload": {"id": 42}})),          # fails the schema
        ("thread-bad", json.dumps({"no": "thread id"})),
    ])
    caplog.set_level(logging.WARNING)
    async with (running_backend(data_dir=tmp_path) as second,
                await RawRpc.open(second.url, second.token) as client):
        snapshot, _ = await subscribes(client, "thread-ok")
        _, replayed = await subscribes(client, "thread-bad")
        assert await client.ok("server.probe", {}) == {}
    assert "thread-ok" in {t["id"] for t in snapshot["threads"]}
    # the replay of the damaged thread skipped what cannot be decoded and sent the rest
    assert bad[1] not in {e["sequence"] for e in replayed}
    assert replayed and replayed[0]["sequence"] < bad[0]
    reported = " ".join(r.getMessage() for r in caplog.records)
    assert f"skipped event {bad[1]}" in reported and f"skipped event {bad[2]}" in reported


def test_a_corrupt_row_stops_serve_naming_the_file_the_row_and_the_way_out(tmp_path):
    db = sqlite3.connect(tmp_path / DB_FILE)
    db.executescript("CREATE TABLE events (sequence INTEGER PRIMARY KEY, command_id TEXT, "
                     "thread_id TEXT NOT NULL, event TEXT NOT NULL);")
    db.execute("INSERT INTO events VALUES (1, NULL, 't', '{\"type\": \"thread.created\"}')")
    db.execute("INSERT INTO events VALUES (2, NULL, 't', '{bad json')")
    db.commit()
    db.close()
    proc = subprocess.run(
        [sys.executable, "-m", "t3tui", "serve", "--port", "0", "--data-dir", str(tmp_path),
         "--token", "tok-corrupt-test"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert str(tmp_path / DB_FILE) in line and "sequence 2" in line, line
    assert "DELETE FROM events WHERE sequence = 2" in line and "backup" in line
    assert "tok-corrupt-test" not in proc.stderr
