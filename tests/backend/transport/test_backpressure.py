"""A client that never reads cannot grow the server without bound.

Streams are held by their ack latch (one Chunk on the wire until it is acked); everything else
waits in one outbox per socket, capped (`rpc.OUTBOX_MAX_MESSAGES` / `OUTBOX_MAX_BYTES`): over
the cap the server reads no more requests from that socket, and when the client still does not
read for `rpc.STALL_S` it closes the socket with 1008 and says why, and keeps serving others.

The clients here never read before the server has judged them: a client that starts reading
un-stalls the server, which then rightly answers everything, so "the server gave up on us" is
waited for (its log record), never assumed from how long the client took to send.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from t3tui.backend import rpc
from t3tui.backend.testing import wait_until
from tests.backend.transport.rawclient import RawRpc, get_ticket, ws_url

CAP = 200
VERDICT = "client is not reading"
JUDGED_WITHIN_S = 60.0  # STALL_S is 1 s here; the rest is slack for a loaded machine


def _small_socket(port: int) -> socket.socket:
    """A client socket with a small receive buffer, so that unread replies back up at the
    server quickly instead of in the kernel."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.setblocking(False)
    return sock


def _batch(start: int, n: int) -> str:
    return json.dumps([{"_tag": "Request", "id": str(i), "tag": "server.getConfig",
                        "payload": {}, "headers": []} for i in range(start, start + n)])


def _more_replies_than_the_kernel_holds(reply_bytes: int) -> int:
    """A number of replies the server's socket buffers cannot all take, whatever this
    machine's TCP autotuning allows (the third field of tcp_wmem is its ceiling): the rest
    must wait in the server's outbox."""
    try:
        ceiling = int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])
    except (OSError, ValueError, IndexError):
        ceiling = 4 * 2**20
    return 2 * ceiling // reply_bytes + 10 * CAP


async def _reply_bytes(backend) -> int:
    async with await RawRpc.open(backend.url, backend.token) as probe:
        await probe.call("server.getConfig", {})
        return len(json.dumps(probe.frames[-1]))


def _judged(caplog: pytest.LogCaptureFixture) -> bool:
    return any(VERDICT in r.getMessage() for r in caplog.records)


async def _read_to_the_close(ws: ClientConnection) -> int:
    """Read what was delivered before the close; the count of messages."""
    received = 0
    with pytest.raises(ConnectionClosed):
        async with asyncio.timeout(JUDGED_WITHIN_S):
            async for _ in ws:
                received += 1
    close = ws.protocol.close_rcvd
    if close is not None:  # the close frame made it through the backlog before the abort
        assert close.code == rpc.NOT_READING and "not reading" in close.reason
    return received


async def _the_server_still_serves(backend) -> None:
    async with await RawRpc.open(backend.url, backend.token) as other:
        answer = await other.call("server.getConfig", {})
        assert answer["_tag"] == "Success"


@pytest.fixture
def small_cap(monkeypatch):
    monkeypatch.setattr(rpc, "OUTBOX_MAX_MESSAGES", CAP)
    monkeypatch.setattr(rpc, "STALL_S", 1.0)


async def test_a_client_that_never_reads_is_closed_with_a_reason(backend, small_cap, caplog):
    ticket = await get_ticket(backend.url, backend.token)
    sent = 0
    # max_queue=1: the client library stops reading the socket once one message is unread
    async with connect(ws_url(backend.url, ticket), sock=_small_socket(backend.port),
                       max_queue=1, max_size=None, close_timeout=5) as ws:
        try:  # keep sending, never reading, until the server gives up on us
            async with asyncio.timeout(JUDGED_WITHIN_S):
                while not _judged(caplog):
                    await ws.send(_batch(sent, 500))
                    sent += 500
                    await asyncio.sleep(0)
        except ConnectionClosed:
            pass  # the server gave up on us and its close timed out while we were sending
        assert _judged(caplog)
        received = await _read_to_the_close(ws)
        assert received < sent  # the server stopped answering: it did not queue them all
        assert sent >= 10 * CAP
    await _the_server_still_serves(backend)


async def test_a_client_that_sends_one_burst_and_never_reads_is_closed(
    backend, small_cap, caplog
):
    """No request comes after the burst: the stall is judged by the clock, not when the
    next request arrives (it never does)."""
    burst = _more_replies_than_the_kernel_holds(await _reply_bytes(backend))
    ticket = await get_ticket(backend.url, backend.token)
    async with connect(ws_url(backend.url, ticket), sock=_small_socket(backend.port),
                       max_queue=1, max_size=None, close_timeout=5) as ws:
        await ws.send(_batch(0, burst))  # one frame: all of it is read at once
        await wait_until(lambda: _judged(caplog), timeout=JUDGED_WITHIN_S,
                         what="the server closes a client that does not read")
        assert await _read_to_the_close(ws) < burst
    await _the_server_still_serves(backend)


async def test_a_reading_client_is_never_cut_off_by_the_cap(backend, small_cap):
    async with await RawRpc.open(backend.url, backend.token) as client:
        for round_ in range(4):  # bursts of several times the cap, all answered
            await client.ws.send(_batch(round_ * 1000, 3 * CAP))
            for i in range(round_ * 1000, round_ * 1000 + 3 * CAP):
                exit_ = await client.next(str(i))
                assert exit_["_tag"] == "Exit"

