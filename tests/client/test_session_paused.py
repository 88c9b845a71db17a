"""t3tui's own pause (SIGSTOP, a laptop's suspend) is not the server's silence.

Found leaving `watch` alone: after a long pause of the process it reconnected, saying "no
`synchronized` from the server within 30s", a deadline that had counted the process's own
pause. Here the pause is the event loop blocked (`time.sleep`), which is what a stopped
process is to its loop: no callback runs and the monotonic clock moves on.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from t3tui.client.backoff import Backoff
from t3tui.client.session import Session
from t3tui.client.state import ConnectionState, Live, Reconnecting
from t3tui.client.waiting import PAUSE_S
from tests.client.fake_server import FakeServer, fake
from tests.client.recording import Recording
from tests.client.scripted import Peer
from tests.client.test_session_resume import SYNCED, serve_config, shell_request, snapshot

T = 10.0
SYNC_S = 2.0


@contextlib.asynccontextmanager
async def running(server: FakeServer, **options: float) -> AsyncIterator[
        tuple[Session, Recording, list[ConnectionState]]]:
    """A session on `server`, running, with every connection state it goes through."""
    sup = Recording()
    states: list[ConnectionState] = []
    async with fake(server) as target:
        session = Session(target, sup, backoff=Backoff.fast(), **options)
        stop_states = session.state.subscribe(states.append)
        task = asyncio.create_task(session.run())
        try:
            yield session, sup, states
        finally:
            stop_states()
            await session.stop()
            await asyncio.gather(task, return_exceptions=True)


def one_socket(server: FakeServer, states: list[ConnectionState]) -> None:
    """Synchronized once and live since, on the one socket: no reconnect."""
    assert server.errors == []
    assert [s.kind for s in states] == ["syncing", "live"], states
    assert server.tickets_issued == 1


async def test_a_pause_of_the_process_while_syncing_is_not_a_server_that_never_syncs() -> None:
    go = asyncio.Event()  # the server's `synchronized` goes out once the pause is over

    async def slow_sync(peer: Peer) -> None:
        await serve_config(peer)
        rid, _ = await shell_request(peer)
        await peer.send({"_tag": "Chunk", "requestId": rid, "values": [snapshot(10)]})
        await go.wait()
        await peer.send({"_tag": "Chunk", "requestId": rid, "values": [SYNCED]})
        while True:
            message = await peer.recv()
            if message["_tag"] == "Ping":
                await peer.send({"_tag": "Pong"})

    server = FakeServer(scripts=[slow_sync])
    async with running(server, sync_timeout=SYNC_S) as (session, sup, states):
        # the snapshot is applied, `synchronized` not yet: the deadline is running
        assert await session.wait_until(lambda: None in sup.since_snapshot, T)
        time.sleep(PAUSE_S + SYNC_S)  # the process stopped, longer than the deadline
        go.set()
        assert await session.wait_until(
            lambda: any(isinstance(s, Live | Reconnecting) for s in states), T)
    one_socket(server, states)


async def test_a_pause_of_the_process_with_a_ping_in_flight_is_not_a_dead_socket() -> None:
    """The Pong to a Ping sent just before the pause is waiting in the socket on resume."""
    await a_ping_outlives(PAUSE_S + 1)  # the process stopped, many ping rounds long


async def test_a_stall_of_the_loop_with_a_ping_in_flight_is_not_a_dead_socket() -> None:
    """A loaded machine: the process runs, but its loop reads nothing for a few ping rounds
    (less than a pause). The Pong that came meanwhile is waiting in the socket when the loop
    looks again, or, from a server on the same loop (the tests' backends), is sent just
    after it: a Ping judged at that moment found the socket dead, and the app refused actions
    as "not connected" while it reconnected (a loaded whole-suite run)."""
    assert PAUSE_S > 3 * 0.5, "the stall must be shorter than a pause"
    await a_ping_outlives(3 * 0.5)  # the loop stalled for three rounds: busy, not paused


async def a_ping_outlives(blocked_s: float) -> None:
    """A Ping goes out, the process's loop is blocked `blocked_s`, its Pong is read just
    after: two more ping rounds follow on the same socket, no reconnect."""
    pinged, pong = asyncio.Event(), asyncio.Event()
    pong.set()

    async def answers(peer: Peer) -> None:
        await serve_config(peer)
        rid, _ = await shell_request(peer)
        await peer.send({"_tag": "Chunk", "requestId": rid, "values": [snapshot(10), SYNCED]})
        while True:
            message = await peer.recv()
            if message["_tag"] == "Ping":
                pinged.set()
                await pong.wait()
                await peer.send({"_tag": "Pong"})

    server = FakeServer(scripts=[answers])
    async with running(server, ping_interval=0.5) as (session, _, states):
        assert await session.wait_until(lambda: isinstance(session.state.value, Live), T)
        await asyncio.wait_for(pinged.wait(), T)
        pinged.clear()
        pong.clear()
        await asyncio.wait_for(pinged.wait(), T)  # a Ping is out, its Pong not yet read
        time.sleep(blocked_s)
        pong.set()  # the Pong is read just after the loop runs again
        rounds = 0

        def two_more_rounds() -> bool:
            nonlocal rounds
            if pinged.is_set():
                rounds, _ = rounds + 1, pinged.clear()
            return rounds >= 2 or any(isinstance(s, Reconnecting) for s in states)

        pinged.clear()
        assert await session.wait_until(two_more_rounds, T, tick=0.05)
    one_socket(server, states)
