"""A restarted backend on the same data directory serves the same sequences and receipts; the
store commits in groups, and no frame shows what is not committed, so a crash loses only what
no client was shown."""

from __future__ import annotations

import json
import signal
import sqlite3
from typing import Any

from websockets.server import ServerProtocol

from t3tui.backend.store import DB_FILE
from t3tui.backend.testing import BackendProcess, running_backend, wait_until
from tests.backend.transport.commands import settle, thread_create
from tests.backend.transport.rawclient import RawRpc

SHELL = "orchestration.subscribeShell"
THREAD = "orchestration.subscribeThread"
DISPATCH = "orchestration.dispatchCommand"


async def read_state(client: RawRpc) -> tuple[dict, list[dict]]:
    """The shell snapshot and thread-p1's full event history (replayed from 0)."""
    shell = await client.request(SHELL, {"requestCompletionMarker": True})
    [snapshot, _] = await client.items_until(shell, lambda item: item["kind"] == "synchronized")
    thread = await client.request(
        THREAD, {"threadId": "thread-p1", "afterSequence": 0, "requestCompletionMarker": True}
    )
    events = await client.items_until(thread, lambda item: item["kind"] == "synchronized")
    return snapshot["snapshot"], events[:-1]


async def test_restart_on_the_same_data_dir_serves_the_same_sequences(tmp_path):
    create = thread_create("thread-p1", command_id="c-persist-create")
    async with running_backend(data_dir=tmp_path) as first:
        async with await RawRpc.open(first.url, first.token) as client:
            created = await client.ok(DISPATCH, create)
            await client.ok(DISPATCH, thread_create("thread-p2"))
            await client.ok(DISPATCH, settle("thread-p1"))
            before = await read_state(client)
        head = first.engine.head

    async with running_backend(data_dir=tmp_path) as second:
        assert second.engine.head == head
        async with await RawRpc.open(second.url, second.token) as client:
            after = await read_state(client)
            # The command receipt survived: the same command is not applied again.
            again = await client.call(DISPATCH, create)
        assert second.engine.head == head

    shell_before, events_before = before
    shell_after, events_after = after
    assert shell_after["snapshotSequence"] == shell_before["snapshotSequence"] == head
    assert shell_after["threads"] == shell_before["threads"]
    assert [(e["sequence"], e["event"]) for e in events_after] == [
        (e["sequence"], e["event"]) for e in events_before
    ]
    assert again == {"_tag": "Success", "value": created}


def sequences_shown(frame: dict[str, Any]) -> list[int]:
    """Every sequence a server frame tells the client about."""
    found = []
    value = (frame.get("exit") or {}).get("value")
    if isinstance(value, dict) and isinstance(value.get("sequence"), int):
        found.append(value["sequence"])
    for item in frame.get("values") or []:
        for key in ("sequence", "snapshotSequence"):
            if isinstance(item.get(key), int):
                found.append(item[key])
        if isinstance(item.get("snapshot"), dict):
            found.append(item["snapshot"]["snapshotSequence"])
    return found


async def test_no_frame_shows_an_event_before_it_is_committed(tmp_path, monkeypatch):
    db_path = tmp_path / DB_FILE
    shown: list[tuple[int, int]] = []  # (highest sequence a frame shows, committed when written)
    send_text = ServerProtocol.send_text

    def tapped(self: ServerProtocol, data: bytes, *args: Any, **kw: Any) -> None:
        if seqs := sequences_shown(json.loads(bytes(data))):
            reader = sqlite3.connect(db_path)
            try:
                committed = reader.execute("SELECT COALESCE(MAX(sequence), 0) FROM events")
                shown.append((max(seqs), committed.fetchone()[0]))
            finally:
                reader.close()
        send_text(self, data, *args, **kw)

    monkeypatch.setattr(ServerProtocol, "send_text", tapped)
    async with running_backend(data_dir=tmp_path) as backend, \
            await RawRpc.open(backend.url, backend.token) as client:
        store = backend.engine.store
        await client.ok(DISPATCH, thread_create("thread-g0"))
        shell = await client.request(SHELL, {}, auto_ack=True)
        await client.next(shell)
        lock = sqlite3.connect(db_path, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")  # the store's writer waits behind this lock
        request = await client.request(DISPATCH, thread_create("thread-g1"))
        await wait_until(lambda: store.ticket > store.written, what="the command's append")
        assert all(seq <= committed for seq, committed in shown)
        lock.execute("COMMIT")
        lock.close()
        sequence = (await client.next(request))["exit"]["value"]["sequence"]
        update = await client.next(shell)
        assert update["values"][-1]["thread"]["id"] == "thread-g1"
    assert (sequence, sequence) in shown  # the answer went out once it was committed
    assert all(seq <= committed for seq, committed in shown), shown


async def test_what_a_client_was_shown_survives_kill_9(tmp_path):
    first = BackendProcess(scenario=None, data_dir=tmp_path).start()
    shown: dict[int, str] = {}  # sequence -> thread id, from the shell stream
    try:
        async with await RawRpc.open(first.url, first.token) as client:
            shell = await client.request(SHELL, {}, auto_ack=True)
            await client.next(shell)
            for n in range(40):  # commands in flight, none awaited: the kill lands among them
                await client.request(DISPATCH, thread_create(f"thread-k{n}"))
            while len(shown) < 10:
                for item in (await client.next(shell))["values"]:
                    shown[item["sequence"]] = item["thread"]["id"]
        # the client is gone; its commands still run (unary calls finish), and are killed
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    finally:
        first.stop()
    async with running_backend(data_dir=tmp_path) as second:
        assert second.engine.head >= max(shown)
        kept = {e.sequence: e.thread_id for e in second.engine.events_after(0)}
        assert all(kept.get(seq) == tid for seq, tid in shown.items()), (shown, kept)
