"""Ping/Pong on an event loop that runs late every round (a busy app under a long burst, a slow
machine): a live socket is not declared dead, a dead one is, in bounded time.

Against the reference backend on this loop, as the tests' backends are. `Busy` makes the loop
late: it busy-waits `busy` seconds (two ping intervals) at a time, so a ping timer that falls
due in a busy spell fires only at its end. With `free` seconds between spells, once a round
ends at the end of a spell every later timer falls in the next one; with none (one turn of
the loop between spells) every step of the ping task, the read loop and the backend waits a
spell. The tests check that the Pings did leave over `LATE` intervals apart. "Dead" is
`Link.hold()`: the socket stays open and nothing more crosses it, either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest

from t3tui.backend.testing import running_backend, wait_until
from t3tui.client import connection
from t3tui.client.connection import LATE, Connection
from t3tui.client.handshake import open_socket
from t3tui.client.secret import Secret, Target
from t3tui.protocol.rpc import Ping
from tests.link import Link

pytestmark = pytest.mark.e2e

INTERVAL = 0.2  # the ping interval
T = 15.0  # bound for every wait


class Pings:
    """A tap: when each Ping left, and how many Pongs came back."""

    def __init__(self) -> None:
        self.sent_at: list[float] = []
        self.pongs = 0

    def received(self, text: str, *, readable: bool = True) -> None:
        self.pongs += '"Pong"' in text

    def sent(self, message: Any, text: str) -> None:
        if isinstance(message, Ping):
            self.sent_at.append(time.monotonic())

    def late_rounds(self) -> int:
        """How many gaps between Pings in a row, up to the latest, took over `LATE` intervals:
        each holds a round at least, and the round that sends a Ping is a late one."""
        gaps = [b - a for a, b in zip(self.sent_at, self.sent_at[1:], strict=False)]
        late = 0
        for gap in reversed(gaps):
            if gap <= INTERVAL * LATE:
                break
            late += 1
        return late


class Busy:
    """Keeps this loop busy `busy` seconds at a time, `free` seconds apart; `free=0`: one turn
    of the loop apart, in which it reads what came and runs what is due, then busy again."""

    def __init__(self, busy: float, free: float) -> None:
        self.busy, self.free = busy, free
        self._handle: asyncio.Handle | None = None

    def _spell(self) -> None:
        end = time.monotonic() + self.busy
        while time.monotonic() < end:
            pass
        self._next()

    def _next(self) -> None:
        loop = asyncio.get_running_loop()
        self._handle = (loop.call_later(self.free, self._spell) if self.free
                        else loop.call_soon(self._spell))

    @contextlib.contextmanager
    def running(self) -> Iterator[Busy]:
        self._next()
        try:
            yield self
        finally:
            assert self._handle is not None
            self._handle.cancel()


async def test_a_live_socket_on_a_loop_late_every_round_is_not_declared_dead() -> None:
    """The backend on this same loop (as in the tests, whose backends ping every second)
    answers a Ping only when the loop lets it, and the Pong is read after the late round
    that judges that Ping: judged then, the socket was declared dead."""
    pings = Pings()
    async with running_backend() as backend:
        ws = await open_socket(Target(backend.url, Secret(backend.token)))
        async with Connection(ws, ping_interval=INTERVAL, tap=pings) as conn:
            await wait_until(lambda: pings.pongs >= 2, timeout=T, what="answered pings")
            with Busy(busy=2 * INTERVAL, free=0).running():
                await wait_until(lambda: pings.late_rounds() >= 3 or not conn.is_open,
                                 timeout=T, what="three late rounds")
                assert conn.is_open, await conn.closed
            assert pings.late_rounds() >= 3


async def test_a_dead_socket_is_declared_dead_on_a_loop_late_every_round() -> None:
    """Once every round was late, a ping round never judged its Ping: a socket whose peer
    was gone without a FIN was live for ever."""
    pings = Pings()
    busy = Busy(busy=2 * INTERVAL, free=INTERVAL / 4)
    async with running_backend() as backend, Link(backend.port).running() as link:
        ws = await open_socket(Target(link.url, Secret(backend.token)))
        async with Connection(ws, ping_interval=INTERVAL, tap=pings) as conn:
            await wait_until(lambda: pings.pongs >= 2, timeout=T, what="answered pings")
            with busy.running():
                await wait_until(lambda: pings.late_rounds() >= 2 or not conn.is_open,
                                 timeout=T, what="the loop late every round")
                assert conn.is_open, await conn.closed
                link.hold()  # the peer is gone; the socket stays open
                held = time.monotonic()
                reason = await asyncio.wait_for(asyncio.shield(conn.closed), T)
                took = time.monotonic() - held
    assert "late" in reason, reason  # judged on a late round, not on one that kept time
    # the bound: the Ping out when the link went silent, then the rounds the verdict waits for,
    # each at most an interval and a spell long (doubled: a loaded machine's own delays)
    round_s = INTERVAL + busy.busy + busy.free
    assert took < (connection.SILENT_ROUNDS + 1) * round_s * 2, (took, reason)
