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
