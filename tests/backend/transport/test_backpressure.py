"""A client that never reads cannot grow the server without bound.

Streams are held by their ack latch (one Chunk on the wire until it is acked); everything else
waits in one outbox per socket, capped (`rpc.OUTBOX_MAX_MESSAGES` / `OUTBOX_MAX_BYTES`): over
the cap the server reads no more requests from that socket, and when the client still does not
read for `rpc.STALL_S` it closes the socket with 1008 and says why, and keeps serving others.
"""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from t3tui.backend import rpc
from tests.backend.transport.rawclient import RawRpc, get_ticket, ws_url

CAP = 200


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
        try:
            async with asyncio.timeout(60):
                while sent < 200_000:  # far more replies than any buffer holds
                    await ws.send(_batch(sent, 500))
                    sent += 500
                    await asyncio.sleep(0)
        except ConnectionClosed:
            pass  # the server gave up on us while we were still sending: what we want
        received = 0
        with pytest.raises(ConnectionClosed):
            async with asyncio.timeout(30):
                async for _ in ws:  # now read what was delivered, up to the close
                    received += 1
        assert received < sent  # the server stopped answering: it did not queue them all
        assert sent >= 10 * CAP
        close = ws.protocol.close_rcvd
        if close is not None:  # the close frame made it through the backlog before the abort
            assert close.code == rpc.NOT_READING and "not reading" in close.reason
    assert any("client is not reading" in r.getMessage() for r in caplog.records)
    # the server is fine and serves the next client
    async with await RawRpc.open(backend.url, backend.token) as other:
        answer = await other.call("server.getConfig", {})
        assert answer["_tag"] == "Success"


async def test_a_reading_client_is_never_cut_off_by_the_cap(backend, small_cap):
    async with await RawRpc.open(backend.url, backend.token) as client:
        for round_ in range(4):  # bursts of several times the cap, all answered
            await client.ws.send(_batch(round_ * 1000, 3 * CAP))
            for i in range(round_ * 1000, round_ * 1000 + 3 * CAP):
                exit_ = await client.next(str(i))
                assert exit_["_tag"] == "Exit"
