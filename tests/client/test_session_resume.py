"""Session resume rules against a hand-steered server: duplicates dropped, `afterSequence` =
cursor, a dead socket reconnects with a fresh ticket, a reset snapshot replaces state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from t3tui.client.backoff import Backoff
from t3tui.client.session import Session
from t3tui.client.state import Failed, Live, Reconnecting
from tests.client.fake_server import FakeServer, fake
from tests.client.recording import Recording
from tests.client.scripted import Peer

T = 10.0


def snapshot(sequence: int) -> dict[str, Any]:
    return {"kind": "snapshot", "snapshot": {"schemaVersion": 1, "snapshotSequence": sequence,
                                             "projects": [], "threads": [], "archivedThreads": []}}


def removed(sequence: int) -> dict[str, Any]:
    return {"kind": "thread.removed", "sequence": sequence, "location": "active",
            "threadId": "thread-gone"}


SYNCED = {"kind": "synchronized"}


async def serve_config(peer: Peer) -> None:
    request = await peer.recv_tag("Request")
    assert request["tag"] == "server.getConfig"
    await peer.send({"_tag": "Exit", "requestId": request["id"],
                     "exit": {"_tag": "Success", "value": {}}})


async def shell_request(peer: Peer) -> tuple[str, dict[str, Any]]:
    request = await peer.recv_tag("Request")
    assert request["tag"] == "orchestration.subscribeShell"
    assert request["payload"]["requestCompletionMarker"] is True
    return request["id"], request["payload"]


async def chunk(peer: Peer, rid: str, values: list[dict[str, Any]]) -> None:
    await peer.send({"_tag": "Chunk", "requestId": rid, "values": values})
    await peer.recv_tag("Ack")


@asynccontextmanager
async def run_session(
    server: FakeServer, sup: Recording, *, ping: float = 5.0
) -> AsyncIterator[Session]:
    async with fake(server) as target:
        session = Session(target, sup, backoff=Backoff.fast(), ping_interval=ping)
        task = asyncio.create_task(session.run())
        try:
            yield session
        finally:
            await session.stop()
            await asyncio.gather(task, return_exceptions=True)


async def test_overlapping_items_are_dropped_and_resume_starts_after_the_cursor() -> None:
    async def first(peer: Peer) -> None:
        await serve_config(peer)
        rid, payload = await shell_request(peer)
        assert "afterSequence" not in payload
        await chunk(peer, rid, [snapshot(10), SYNCED])
        await chunk(peer, rid, [removed(11)])
        await chunk(peer, rid, [removed(11), removed(12)])  # 11 again: live/replay overlap
        # returning drops the socket

    async def second(peer: Peer) -> None:
        await serve_config(peer)
        rid, payload = await shell_request(peer)
        assert payload["afterSequence"] == 12
        await chunk(peer, rid, [removed(12), SYNCED, removed(13)])
        await peer.ws.wait_closed()

    server = FakeServer(scripts=[first, second])
    sup = Recording()
    async with run_session(server, sup) as session:
        assert await session.wait_until(lambda: sup.cursor_shell == 13, T)
        assert isinstance(session.state.value, Live)
    assert server.errors == []
    assert sup.handed == [(None, 11), (None, 12), (None, 13)]
    assert server.tickets_issued == 2


async def test_a_dead_socket_reconnects_and_a_reset_snapshot_replaces_state() -> None:
    async def silent(peer: Peer) -> None:
        await serve_config(peer)
        rid, _ = await shell_request(peer)
        await chunk(peer, rid, [snapshot(10), SYNCED, removed(20)])
        while True:  # never answers a Ping
            await peer.recv()

    async def restored(peer: Peer) -> None:
        await serve_config(peer)
        rid, payload = await shell_request(peer)
        assert payload["afterSequence"] == 20
        # The server's database was replaced: its head is behind our cursor, so it resets us.
        await chunk(peer, rid, [snapshot(5), SYNCED, removed(6)])
        while True:
            message = await peer.recv()
            if message["_tag"] == "Ping":
                await peer.send({"_tag": "Pong"})

    server = FakeServer(scripts=[silent, restored])
    sup = Recording()
    async with run_session(server, sup, ping=0.05) as session:
        assert await session.wait_until(lambda: sup.cursor_shell == 6, T)
    assert server.errors == []
    assert sup.since_snapshot[None] == (5, [6])
    assert server.tickets_issued == 2


async def test_stop_ends_a_session_that_waits_to_reconnect() -> None:
    async with fake(FakeServer()) as target:
        gone = target  # nothing listens there once the server is closed
    session = Session(gone, Recording(), backoff=Backoff((60.0,)))
    task = asyncio.create_task(session.run())
    state = await asyncio.wait_for(
        session.state.wait_for(lambda s: isinstance(s, Reconnecting)), T
    )
    assert state.attempt == 1 and "cannot reach" in state.last_error
    await session.stop()
    await asyncio.wait_for(task, T)  # not the 60 s backoff
    assert session.state.value == Failed("stopped")
