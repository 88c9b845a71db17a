"""Connection over a real loopback socket, against a hand-steered server."""

from __future__ import annotations

import asyncio
import itertools
import json
import time

import pytest

from t3tui.backend.testing import wait_until
from t3tui.client import acks, connection
from t3tui.client.connection import READ_SLICE_S
from t3tui.client.errors import ConnectionLost, RpcFailure
from tests.client.scripted import Peer, scripted

T = 5.0  # bound for every wait: a hang fails fast instead of hitting the suite timeout


async def test_unary_call_uses_string_ids_and_returns_the_value() -> None:
    async def script(peer: Peer) -> None:
        request = await peer.recv_tag("Request")
        assert request["id"] == "1" and isinstance(request["id"], str)
        assert request["tag"] == "server.getConfig" and request["headers"] == []
        await peer.send(
            {"_tag": "Exit", "requestId": "1", "exit": {"_tag": "Success", "value": {"ok": 1}}}
        )

    async with scripted(script) as conn:
        assert await asyncio.wait_for(conn.call("server.getConfig", {}), T) == {"ok": 1}


async def test_every_chunk_is_processed_then_acked_before_the_next() -> None:
    seen: list[object] = []
    acked_after: list[int] = []

    async def script(peer: Peer) -> None:
        request = await peer.recv_tag("Request")
        rid = request["id"]
        for batch in ([1, 2], [3], [4, 5, 6]):
            await peer.send({"_tag": "Chunk", "requestId": rid, "values": batch})
            ack = await peer.recv_tag("Ack")
            assert ack == {"_tag": "Ack", "requestId": rid}
            acked_after.append(len(seen))
        await peer.send({"_tag": "Exit", "requestId": rid, "exit": {"_tag": "Success"}})

    async with scripted(script) as conn:
        handle = await conn.open_stream("orchestration.subscribeShell", {}, seen.extend)
        await asyncio.wait_for(handle.done, T)
    assert seen == [1, 2, 3, 4, 5, 6]
    # all values of a chunk were handled before its Ack left the client
    assert acked_after == [2, 3, 6]


async def test_typed_failure_becomes_rpc_failure_with_the_servers_words() -> None:
    error = {
        "_tag": "OrchestrationV2DispatchCommandError",
        "commandId": "c-1",
        "commandType": "thread.settle",
        "message": "Thread t has active or blocked work and cannot be settled.",
    }

    async def script(peer: Peer) -> None:
        rid = (await peer.recv_tag("Request"))["id"]
        exit_ = {"_tag": "Failure", "cause": [{"_tag": "Fail", "error": error}]}
        await peer.send({"_tag": "Exit", "requestId": rid, "exit": exit_})

    async with scripted(script) as conn:
        with pytest.raises(RpcFailure) as info:
            await asyncio.wait_for(conn.call("orchestration.dispatchCommand", {}), T)
    assert info.value.tag == "OrchestrationV2DispatchCommandError"
    assert str(info.value) == error["message"]


async def test_defect_fails_every_request_in_flight_and_closes() -> None:
    async def script(peer: Peer) -> None:
        await peer.recv_tag("Request")
        await peer.recv_tag("Request")
        await peer.send({"_tag": "Defect", "defect": "Unknown request tag: nope"})

    async with scripted(script) as conn:
        calls = [asyncio.ensure_future(conn.call("nope", {})) for _ in range(2)]
        results = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), T)
        assert all(isinstance(r, ConnectionLost) for r in results)
        assert "Unknown request tag" in str(results[0])
        assert "defect" in await asyncio.wait_for(conn.closed, T)
        with pytest.raises(ConnectionLost):
            await conn.call("server.getConfig", {})


async def test_a_missing_pong_declares_the_socket_dead() -> None:
    pings = 0

    async def script(peer: Peer) -> None:
        nonlocal pings
        while True:
            message = await peer.recv()
            pings += message["_tag"] == "Ping"

    async with scripted(script, ping_interval=0.05) as conn:
        call = asyncio.ensure_future(conn.call("server.getConfig", {}))
        reason = await asyncio.wait_for(conn.closed, T)
        assert "no Pong" in reason
        with pytest.raises(ConnectionLost):
            await call
    assert pings == 1  # one unanswered ping, then the verdict at the next one


async def test_a_pong_behind_a_long_burst_is_not_a_dead_socket() -> None:
    """A server busy with a long burst answers a Ping only after it: frames coming all the
    while are a live socket, however late its Pong (it was declared dead at the next ping)."""
    interval = 0.1
    burst_over, pongs = asyncio.Event(), 0

    async def script(peer: Peer) -> None:
        nonlocal pongs
        rid = (await peer.recv_tag("Request"))["id"]
        while (await peer.recv())["_tag"] != "Ping":
            pass
        loop = asyncio.get_running_loop()
        end = loop.time() + 4 * interval  # four rounds of frames before the Pong
        while loop.time() < end:
            await peer.send({"_tag": "Chunk", "requestId": rid, "values": [1]})
            await asyncio.sleep(interval / 5)
        await peer.send({"_tag": "Pong"})
        burst_over.set()
        while True:
            if (await peer.recv())["_tag"] == "Ping":
                await peer.send({"_tag": "Pong"})
                pongs += 1

    seen: list[object] = []
    async with scripted(script, ping_interval=interval) as conn:
        await conn.open_stream("orchestration.subscribeShell", {}, seen.extend)
        burst = asyncio.ensure_future(burst_over.wait())
        await asyncio.wait([burst, conn.closed], timeout=T, return_when=asyncio.FIRST_COMPLETED)
        assert conn.is_open, conn.closed.result()
        assert burst_over.is_set() and len(seen) >= 4
        # two more rounds, answered at once
        await wait_until(lambda: pongs >= 2 or not conn.is_open, timeout=T)
        assert conn.is_open, conn.closed.result()


async def test_answered_pings_keep_the_socket_alive() -> None:
    pongs = asyncio.Event()
    count = 0

    async def script(peer: Peer) -> None:
        nonlocal count
        while True:
            assert (await peer.recv())["_tag"] == "Ping"
            await peer.send({"_tag": "Pong"})
            count += 1
            if count == 4:
                pongs.set()

    async with scripted(script, ping_interval=0.02) as conn:
        await asyncio.wait_for(pongs.wait(), T)
        assert conn.is_open


async def test_socket_closing_before_the_exit_is_connection_lost() -> None:
    async def script(peer: Peer) -> None:
        await peer.recv_tag("Request")
        await peer.ws.close()

    async with scripted(script) as conn:
        with pytest.raises(ConnectionLost):
            await asyncio.wait_for(conn.call("orchestration.dispatchCommand", {}), T)


async def test_interrupt_unsubscribes_and_ends_the_stream_quietly() -> None:
    seen: list[object] = []

    async def script(peer: Peer) -> None:
        rid = (await peer.recv_tag("Request"))["id"]
        await peer.send({"_tag": "Chunk", "requestId": rid, "values": ["a"]})
        await peer.recv_tag("Ack")
        assert await peer.recv_tag("Interrupt") == {"_tag": "Interrupt", "requestId": rid}
        # a chunk already in flight is acked but no longer delivered
        await peer.send({"_tag": "Chunk", "requestId": rid, "values": ["late"]})
        await peer.recv_tag("Ack")
        exit_ = {"_tag": "Failure", "cause": [{"_tag": "Interrupt", "fiberId": 7}]}
        await peer.send({"_tag": "Exit", "requestId": rid, "exit": exit_})

    async with scripted(script) as conn:
        got_first = asyncio.Event()

        def on_values(values: list[object]) -> None:
            seen.extend(values)
            got_first.set()

        handle = await conn.open_stream("orchestration.subscribeThread", {}, on_values)
        await asyncio.wait_for(got_first.wait(), T)
        await handle.interrupt()
        assert await asyncio.wait_for(handle.done, T) is None
    assert seen == ["a"]


async def test_an_unreadable_frame_ends_the_connection_with_a_reason() -> None:
    async def script(peer: Peer) -> None:
        await peer.recv_tag("Request")
        await peer.ws.send('{"_tag": "Exit", "requestId": 5}')

    async with scripted(script) as conn:
        with pytest.raises(ConnectionLost) as info:
            await asyncio.wait_for(conn.call("server.getConfig", {}), T)
    assert "unreadable frame" in str(info.value)


async def test_a_lone_surrogate_from_the_wire_echoed_back_does_not_fail_the_socket() -> None:
    # A hostile server's thread id "a\ud800" (legal JSON) comes back in our subscription
    # request: websockets cannot encode it as UTF-8 and failed the socket on every connect.
    got: list[object] = []

    async def script(peer: Peer) -> None:
        request = await peer.recv_tag("Request")
        got.append(request["payload"]["threadId"])
        await peer.send({"_tag": "Exit", "requestId": request["id"],
                         "exit": {"_tag": "Success", "value": "ok"}})

    async with scripted(script) as conn:
        value = await asyncio.wait_for(
            conn.call("orchestration.getThreadProjection", {"threadId": "a\ud800b"}), T)
        assert value == "ok" and conn.is_open
    assert got == ["a\ud800b"]  # the same JSON value arrived, escaped on the wire


async def test_a_burst_of_buffered_chunks_lets_the_loop_in_between() -> None:
    """websockets' `recv` returns without suspending while frames are buffered, so a burst
    applied back to back held the event loop for the whole burst: a key or a paint waited
    behind all of it. The read loop yields once it has worked a few milliseconds, keeping
    the order of the values and of the acks."""
    chunks, cost = 40, 0.002  # 80 ms of consumer work, all of it buffered at once
    seen: list[int] = []
    probe_runs = 0
    runs_at: list[int] = []  # how often the probe had run when each chunk was handled

    def consume(values: list[int]) -> None:
        until = time.perf_counter() + cost
        while time.perf_counter() < until:
            pass  # a consumer's CPU work (the model applying an item)
        seen.extend(values)
        runs_at.append(probe_runs)

    async def probe() -> None:
        nonlocal probe_runs
        while True:
            probe_runs += 1
            await asyncio.sleep(0)

    async def script(peer: Peer) -> None:
        rid = (await peer.recv_tag("Request"))["id"]
        for n in range(chunks):
            await peer.send({"_tag": "Chunk", "requestId": rid, "values": [n]})
        for _ in range(chunks):
            assert await peer.recv_tag("Ack") == {"_tag": "Ack", "requestId": rid}
        await peer.send({"_tag": "Exit", "requestId": rid, "exit": {"_tag": "Success"}})

    async with scripted(script) as conn:
        prober = asyncio.create_task(probe())
        try:
            handle = await conn.open_stream("orchestration.subscribeThread", {}, consume)
            await asyncio.wait_for(handle.done, T)
        finally:
            prober.cancel()
    assert seen == list(range(chunks))
    # the longest run of chunks handled with nothing else let in between
    longest = max(sum(1 for _ in group) for _, group in itertools.groupby(runs_at))
    budget = READ_SLICE_S / cost
    assert longest <= budget + 2, f"{longest} chunks ({longest * cost * 1000:.0f} ms) in a row"


async def _acks_of_chunks_read_together(monkeypatch: pytest.MonkeyPatch) -> int:
    """Chunks of 8 streams arrive in one write; each is applied, then acked in order (the
    script checks): returns how many writes the client's Acks took."""
    monkeypatch.setattr(connection, "READ_SLICE_S", 60.0)  # no slice ends within the burst
    streams = 8
    applied: list[str] = []

    async def script(peer: Peer) -> None:
        rids = [(await peer.recv_tag("Request"))["id"] for _ in range(streams)]
        await opened.wait()
        for rid in rids:  # every Chunk in one write, as a busy server's frames arrive
            peer.ws.protocol.send_text(json.dumps(
                {"_tag": "Chunk", "requestId": rid, "values": [rid]}).encode())
        peer.ws.transport.write(b"".join(peer.ws.protocol.data_to_send()))
        acks = [await peer.recv_tag("Ack") for _ in range(streams)]
        assert acks == [{"_tag": "Ack", "requestId": rid} for rid in rids]
        assert applied == rids  # each Chunk was applied before any Ack was read
        for rid in rids:
            await peer.send({"_tag": "Exit", "requestId": rid, "exit": {"_tag": "Success"}})

    opened = asyncio.Event()
    async with scripted(script, ping_interval=60.0) as conn:
        handles = [await conn.open_stream("orchestration.subscribeThread", {}, applied.extend)
                   for _ in range(streams)]
        transport = conn._ws.transport
        writes = 0
        write = transport.write

        def counted(data: bytes) -> None:
            nonlocal writes
            writes += 1
            write(data)

        transport.write = counted  # type: ignore[method-assign]
        opened.set()
        await asyncio.wait_for(asyncio.gather(*(h.done for h in handles)), T)
        return writes


async def test_acks_of_chunks_read_together_leave_in_one_write(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Their Acks leave in one write to the socket, not one write (a syscall, and on a
    loopback the peer's receive too) per Chunk."""
    assert await _acks_of_chunks_read_together(monkeypatch) == 1


async def test_acks_wait_for_a_socket_that_takes_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the socket's buffer over its limit each Ack goes through websockets' `send`,
    which waits for the socket: a peer that stops reading stops the reader too."""
    monkeypatch.setattr(acks, "BUFFER_LIMIT", -1)  # the buffer is always over it
    assert await _acks_of_chunks_read_together(monkeypatch) == 8
