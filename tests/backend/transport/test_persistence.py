"""A restarted backend on the same data directory serves the same sequences and receipts."""

from __future__ import annotations

from t3tui.backend.testing import running_backend
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
