"""Resume rules of protocol §6 over a real socket: replay within 1000, snapshot otherwise."""

from __future__ import annotations

import pytest

from t3tui.backend.subscriptions import MAX_RESUME_GAP
from t3tui.protocol.commands import decode_command
from tests.backend.transport.commands import settle, thread_create
from tests.backend.transport.rawclient import RawRpc

SHELL = "orchestration.subscribeShell"
THREAD = "orchestration.subscribeThread"
DISPATCH = "orchestration.dispatchCommand"


def is_marker(item: dict) -> bool:
    return item["kind"] == "synchronized"


async def catch_up(client: RawRpc, tag: str, payload: dict) -> list[dict]:
    """Subscribe with the completion marker; the items before it."""
    rid = await client.request(tag, {**payload, "requestCompletionMarker": True})
    items = await client.items_until(rid, is_marker)
    return items[: items.index({"kind": "synchronized"})]


async def test_shell_resume_replays_only_what_changed(backend):
    async with await RawRpc.open(backend.url, backend.token) as client:
        [snapshot] = await catch_up(client, SHELL, {})
        cursor = snapshot["snapshot"]["snapshotSequence"]
        await client.ok(DISPATCH, thread_create("thread-r1"))
        await client.ok(DISPATCH, thread_create("thread-r2"))
    async with await RawRpc.open(backend.url, backend.token) as client:
        replay = await catch_up(client, SHELL, {"afterSequence": cursor})
        assert [item["kind"] for item in replay] == ["thread.updated", "thread.updated"]
        assert [item["thread"]["id"] for item in replay] == ["thread-r1", "thread-r2"]
        assert all(item["sequence"] > cursor for item in replay)
        # Nothing changed since the head: an empty replay, then the marker.
        assert await catch_up(client, SHELL, {"afterSequence": backend.engine.head}) == []


async def test_thread_resume_replays_that_threads_events(backend):
    async with await RawRpc.open(backend.url, backend.token) as client:
        created = (await client.ok(DISPATCH, thread_create("thread-r3")))["sequence"]
        await client.ok(DISPATCH, thread_create("thread-other"))
        settled = (await client.ok(DISPATCH, settle("thread-r3")))["sequence"]
        replay = await catch_up(client, THREAD, {"threadId": "thread-r3", "afterSequence": created})
    assert [item["kind"] for item in replay] == ["event"] * len(replay)
    assert {item["event"]["threadId"] for item in replay} == {"thread-r3"}
    assert replay[-1]["sequence"] == settled
    assert replay[-1]["event"]["type"] == "thread.settled"


async def test_subscribing_to_an_unknown_thread_is_a_typed_failure(backend):
    async with await RawRpc.open(backend.url, backend.token) as client:
        for payload in ({"threadId": "ghost"}, {"threadId": "ghost", "afterSequence": 0}):
            exit_ = await client.call(THREAD, payload)
            [cause] = exit_["cause"]
            assert cause["_tag"] == "Fail"
            assert cause["error"]["_tag"] == "OrchestrationV2GetThreadProjectionError"
            assert cause["error"]["threadId"] == "ghost"


async def test_a_cursor_ahead_of_the_head_gets_a_snapshot(backend):
    async with await RawRpc.open(backend.url, backend.token) as client:
        await client.ok(DISPATCH, thread_create("thread-r4"))
        head = backend.engine.head
        [shell] = await catch_up(client, SHELL, {"afterSequence": head + 50})
        assert shell["kind"] == "snapshot"
        assert shell["snapshot"]["snapshotSequence"] == head
        [thread] = await catch_up(
            client, THREAD, {"threadId": "thread-r4", "afterSequence": head + 1}
        )
        assert thread["kind"] == "snapshot" and thread["snapshotSequence"] == head


@pytest.mark.timeout(120)
async def test_more_than_1000_behind_gets_a_snapshot_and_1000_exactly_a_replay(backend):
    # Enough history, written straight into the engine: the socket is what is under test here.
    first = await backend.engine.dispatch(decode_command(thread_create("thread-old")))
    n = 0
    while backend.engine.head - first <= MAX_RESUME_GAP + 1:
        n += 1
        await backend.engine.dispatch(decode_command(thread_create(f"thread-bulk-{n}")))
    head = backend.engine.head
    async with await RawRpc.open(backend.url, backend.token) as client:
        [reset] = await catch_up(client, SHELL, {"afterSequence": head - MAX_RESUME_GAP - 1})
        assert reset["kind"] == "snapshot"
        assert reset["snapshot"]["snapshotSequence"] == head
        assert "thread-old" in {row["id"] for row in reset["snapshot"]["threads"]}

        replay = await catch_up(client, SHELL, {"afterSequence": head - MAX_RESUME_GAP})
        assert {item["kind"] for item in replay} == {"thread.updated"}
        assert min(item["sequence"] for item in replay) > head - MAX_RESUME_GAP

        [thread_reset] = await catch_up(
            client, THREAD, {"threadId": "thread-old", "afterSequence": first - 1}
        )
        assert thread_reset["kind"] == "snapshot"
