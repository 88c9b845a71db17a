"""The feed asks which threads are wanted at most once per frame interval, not per batch, and
still acts on a change of interest (subscribes) once the interval ends. A real socket to a
scripted peer; a real `Supervisor` that counts how often it is asked."""

from __future__ import annotations

import asyncio
from typing import Any

from t3tui.backend.testing import wait_until
from t3tui.client.feed import INTEREST_S, Feed, StreamUpdate
from t3tui.model import Supervisor
from tests.client.scripted import Peer, scripted

BURST = 150


def row(thread_id: str, title: str, **extra: Any) -> dict[str, Any]:
    return {"id": thread_id, "projectId": "p", "title": title, "status": "idle",
            "createdAt": "2026-10-04T12:00:00Z", "updatedAt": "2026-10-04T12:00:00Z", **extra}


def chunk(rid: str, item: dict[str, Any]) -> dict[str, Any]:
    return {"_tag": "Chunk", "requestId": rid, "values": [item]}


class Counting(Supervisor):
    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def threads_of_interest(self) -> frozenset[str]:
        self.asked += 1
        return super().threads_of_interest()


async def test_a_burst_asks_for_interest_per_interval_and_a_busy_thread_is_still_subscribed(
) -> None:
    sup = Counting()
    subscribed: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    burst: dict[str, float] = {}

    async def script(peer: Peer) -> None:
        rid = (await peer.recv_tag("Request"))["id"]
        snapshot = {"kind": "snapshot", "snapshot": {"snapshotSequence": 1,
                                                      "threads": [row("t1", "a"), row("t2", "b")]}}
        for item in (snapshot, {"kind": "synchronized"}):
            await peer.send(chunk(rid, item))
            await peer.recv_tag("Ack")
        burst["asked"], burst["start"] = sup.asked, asyncio.get_running_loop().time()
        for seq in range(2, 2 + BURST):
            await peer.send(chunk(rid, {"kind": "thread.updated", "sequence": seq,
                                        "location": "active", "thread": row("t1", f"a{seq}")}))
            await peer.recv_tag("Ack")
        # the last batch makes t2 busy: the feed must subscribe it without any batch after
        await peer.send(chunk(rid, {"kind": "thread.updated", "sequence": 2 + BURST,
                                    "location": "active",
                                    "thread": row("t2", "b", activityRunStatus="running")}))
        await peer.recv_tag("Ack")
        burst["asked"], burst["s"] = (sup.asked - burst["asked"],
                                      asyncio.get_running_loop().time() - burst["start"])
        subscribed.set_result(await peer.recv_tag("Request"))
        await peer.ws.wait_closed()  # hold the socket until the client leaves

    updates: list[StreamUpdate] = []
    async with scripted(script) as conn:
        feed = Feed(conn, sup, sup.threads_of_interest, updates.append)
        await feed.start()
        try:
            request = await asyncio.wait_for(subscribed, 10)
            assert request["tag"] == "orchestration.subscribeThread"
            assert request["payload"]["threadId"] == "t2"
            # at most one look at the start of each interval plus one at its end, and the
            # reconciler's own: far fewer than the 2 per batch of a look after every batch
            allowed = 2 * (2 + burst["s"] / INTEREST_S) + 4
            assert burst["asked"] <= allowed, (burst, BURST)
            assert burst["asked"] < BURST  # the point of it, whatever the machine's speed
            await wait_until(lambda: feed.wanted() == {"t2"}, timeout=5)
        finally:
            feed.close()
    assert sum(u.items for u in updates) == BURST + 3  # every batch still reached the session


class Compared(frozenset):
    """What is wanted, counting how often it is compared with the synchronized streams."""

    compared = 0

    def __le__(self, other: Any) -> bool:
        Compared.compared += 1
        return super().__le__(other)


async def test_whether_every_wanted_stream_is_synchronized_is_not_recomputed_per_batch() -> None:
    """The session asks `complete()` after every batch; with 50 wanted threads (hundreds with a
    busy tree) comparing them all each time cost more than some items' model work. The answer
    is kept until what is wanted or what is synchronized changes, and still moves when it does."""
    sup = Supervisor()
    threads = [f"t{i}" for i in range(50)]
    subscribed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    wanted = Compared(threads)
    seen: dict[str, Any] = {}

    async def script(peer: Peer) -> None:
        shell = (await peer.recv_tag("Request"))["id"]
        snapshot = {"kind": "snapshot", "snapshot": {
            "snapshotSequence": 1, "threads": [row(t, t) for t in threads]}}
        streams, acks = {}, 0
        for item in (snapshot, {"kind": "synchronized"}):
            await peer.send(chunk(shell, item))
        while acks < 2 or len(streams) < len(threads):  # the acks and the subscriptions
            message = await peer.recv()
            acks += message["_tag"] == "Ack"
            if message["_tag"] == "Request":
                streams[message["payload"]["threadId"]] = message["id"]
        for tid, rid in streams.items():
            await peer.send(chunk(rid, {"kind": "snapshot", "snapshotSequence": 1,
                                        "projection": {"thread": row(tid, tid)}}))
            await peer.recv_tag("Ack")
        for i, rid in enumerate(streams.values()):
            await peer.send(chunk(rid, {"kind": "synchronized"}))
            await peer.recv_tag("Ack")
            if i == len(streams) - 2:
                seen["complete before the last"] = feed.complete()
        seen["complete"] = feed.complete()
        Compared.compared = 0
        for seq in range(2, 2 + BURST):
            await peer.send(chunk(shell, {"kind": "thread.updated", "sequence": seq,
                                          "location": "active", "thread": row("t1", f"a{seq}")}))
            await peer.recv_tag("Ack")
        seen["compared"] = Compared.compared
        subscribed.set_result(None)
        await peer.ws.wait_closed()

    def on_batch(_update: StreamUpdate) -> None:
        feed.complete()  # as the session does

    async with scripted(script) as conn:
        feed = Feed(conn, sup, lambda: wanted, on_batch)
        await feed.start()
        try:
            await asyncio.wait_for(subscribed, 10)
        finally:
            feed.close()
    assert seen["complete before the last"] is False and seen["complete"] is True
    assert seen["compared"] <= 2, f"{BURST} batches compared the wanted threads {seen['compared']} times"
