"""The ingest benchmark's @frames client counts, as the burst's, only the rows the burst made.

Its frames run at the app's cadence, so whether the frame that shows the synchronized tree (the
first tree; the shell's `synchronized` lifting every row's `stale` overlay) falls before or
after the session goes Live was a race: on a loaded machine it fell after, and 10,000 sync rows
were counted as burst rows (rows/item 3.65 at 10,000 threads against 0.4 elsewhere) and their
CPU as burst CPU. A ticker that never fires before the burst ends makes that race certain.
"""

from __future__ import annotations

import asyncio

import pytest

import benchmarks.consumers as consumers
from benchmarks.ingest import one_client
from benchmarks.procs import ChildServer
from benchmarks.world import WorldSpec, build_world


@pytest.mark.timeout(120)
def test_the_syncs_rows_are_not_counted_as_the_bursts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(consumers, "FRAME_S", 3600.0)  # no frame before the last batch
    world = build_world(WorldSpec(threads=400, events=60, active=0))

    async def run() -> dict[str, float]:
        server = ChildServer("benchmarks.replay_server", "--threads", "400", "--events", "60",
                             "--active", "0")
        await server.start()
        try:
            return await one_client(server, world, consumers.FrameClientRun)
        finally:
            await server.stop()

    result = asyncio.run(run())
    # the burst's items reach the family threads (and their parents, also family) and, on
    # the shell, at most one thread each: never the 400 rows of the synchronized tree
    bound = len(world.subscribed) + sum(1 for stream, _ in world.burst if stream is None)
    assert bound < 400
    assert 0 < result["rows_per_item"] * len(world.burst) <= bound
