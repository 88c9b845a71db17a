"""`watch` looks at frame cadence, as the app's screen does: what arrives within a frame is
taken in one `changed_rows`, never one per batch (issue 25: `watch` CPU). A stream of many
small batches (the soak's replay server, a real websocket server in a child process) is
watched in-process; every look after the baseline comes at least a frame after the last."""

from __future__ import annotations

import time
from datetime import datetime
from itertools import pairwise

import pytest

from benchmarks.procs import ChildServer
from t3tui.backend.testing import wait_until
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.headless.watch import FRAME_S, Printer
from t3tui.model import Supervisor, ThreadRow
from tests.headless.watching import watch_in_process

pytestmark = pytest.mark.e2e

THREADS, RATE, ITEMS = 60, 400.0, 400  # one second of small batches on many streams


class TimedLooks(Supervisor):
    """The real supervisor, noting when each `changed_rows` was taken (monotonic clock)."""

    def __init__(self) -> None:
        super().__init__()
        self.looks: list[float] = []

    def changed_rows(self, now: datetime) -> dict[str, ThreadRow | None]:
        self.looks.append(time.monotonic())
        return super().changed_rows(now)


async def test_watch_takes_changed_rows_at_most_once_a_frame() -> None:
    server = ChildServer("benchmarks.replay_server", "--threads", str(THREADS), "--events",
                         str(ITEMS), "--item-ms", str(1000 / RATE), "--rate", str(RATE),
                         "--wait-go")
    async with server:
        sup = TimedLooks()
        session = Session(Target(server.url, Secret("bench-token")), sup)
        batches = 0

        def counted(_update: object) -> None:
            nonlocal batches
            batches += 1

        stop_counting = session.on_update(counted)
        async with watch_in_process(session, sup, Printer(ndjson=True)):
            try:
                await wait_until(lambda: sup.looks, timeout=10)  # the baseline is taken
                looks_before, batches_before = len(sup.looks), batches
                await server.send("go")
                await server.result(60)  # every item sent and acked
                await wait_until(lambda: time.monotonic() - sup.looks[-1] > 2 * FRAME_S,
                                 timeout=10)
            finally:
                stop_counting()
    looks = sup.looks[looks_before - 1:]
    assert batches - batches_before >= 50, "the stream came in too few batches to tell"
    assert len(looks) > 2, "watch did not look while the stream ran"
    gaps = sorted(b - a for a, b in pairwise(looks))
    assert gaps[0] >= FRAME_S * 0.99, (
        f"{len(looks)} looks for {batches - batches_before} batches; shortest gaps "
        f"{[round(g * 1000, 1) for g in gaps[:5]]} ms: watch looked more than once a frame")
