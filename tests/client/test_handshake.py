"""Handshake paths the reference backend never takes: other protocol versions, 426, 401s.

A small real HTTP/websocket server (websockets' `process_request`) plays the T3 server.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from t3tui.client.errors import AuthenticationNeeded, ConnectError, ProtocolMismatch
from t3tui.client.handshake import open_socket
from t3tui.client.secret import Secret, Target

TOKEN = "tok-must-never-show-9f8e7d"
DESCRIPTOR = {
    "environmentId": "env-test",
    "label": "test",
    "platform": {"os": "linux", "arch": "x64"},
    "serverVersion": "0.0.1",
    "capabilities": {},
}


@dataclass
class FakeServer:
    """What the server answers, and what it saw."""

    version: int | None = 2
    upgrade_statuses: list[int] = field(default_factory=list)  # consumed one per upgrade
    ticket_status: int = 200
    tickets_issued: int = 0
    upgrades: list[str] = field(default_factory=list)

    def respond(self, conn: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?")[0]
        if path == "/.well-known/t3/environment":
            body: dict[str, Any] = dict(DESCRIPTOR)
            if self.version is not None:
                body["orchestrationProtocolVersion"] = self.version
            return _json(conn, 200, body)
        if path == "/api/auth/websocket-ticket":
            assert request.headers.get("Authorization") == f"Bearer {TOKEN}"
            if self.ticket_status != 200:
                return _json(conn, self.ticket_status, {"code": "auth_invalid", "reason": "bad"})
            self.tickets_issued += 1
            return _json(conn, 200, {"ticket": f"wst_{self.tickets_issued}"})
        self.upgrades.append(request.path)
        status = self.upgrade_statuses.pop(0) if self.upgrade_statuses else 101
        if status == 426:
            body = {"code": "orchestration_protocol_incompatible", "message": "m",
                    "orchestrationProtocolVersion": 3}
            return _json(conn, 426, body)
        if status == 401:
            return _json(conn, 401, {"_tag": "EnvironmentAuthInvalidError",
                                     "code": "auth_invalid", "reason": "ticket used"})
        return None


def _json(conn: ServerConnection, status: int, body: Any) -> Response:
    response = conn.respond(status, json.dumps(body))
    response.headers["Content-Type"] = "application/json"
    return response


@asynccontextmanager
async def fake(server: FakeServer) -> AsyncIterator[Target]:
    async def handler(ws: ServerConnection) -> None:
        await ws.wait_closed()

    async with serve(handler, "127.0.0.1", 0, process_request=server.respond) as running:
        port = running.sockets[0].getsockname()[1]
        yield Target(f"http://127.0.0.1:{port}", Secret(TOKEN))


async def test_v2_server_upgrades_with_a_fresh_ticket_and_the_protocol_param() -> None:
    server = FakeServer()
    async with fake(server) as target:
        for _ in range(2):
            ws = await open_socket(target, open_timeout=5)
            await ws.close()
    assert server.tickets_issued == 2
    assert server.upgrades == [
        "/ws?wsTicket=wst_1&orchestrationProtocol=2",
        "/ws?wsTicket=wst_2&orchestrationProtocol=2",
    ]


@pytest.mark.parametrize(
    ("version", "expected"),
    [(None, "server speaks protocol 1, t3tui speaks 2"), (3, "server speaks protocol 3, t3tui speaks 2")],
)
async def test_other_protocol_versions_are_refused_before_any_ticket(
    version: int | None, expected: str
) -> None:
    server = FakeServer(version=version)
    async with fake(server) as target:
        with pytest.raises(ProtocolMismatch, match=expected):
            await open_socket(target, open_timeout=5)
    assert server.tickets_issued == 0


async def test_426_on_upgrade_stops_with_the_servers_version() -> None:
    server = FakeServer(upgrade_statuses=[426])
    async with fake(server) as target:
        with pytest.raises(ProtocolMismatch, match="server speaks protocol 3, t3tui speaks 2"):
            await open_socket(target, open_timeout=5)


async def test_one_401_gets_one_new_ticket() -> None:
    server = FakeServer(upgrade_statuses=[401])
    async with fake(server) as target:
        ws = await open_socket(target, open_timeout=5)
        await ws.close()
    assert server.tickets_issued == 2


async def test_two_401s_mean_authentication_is_needed() -> None:
    server = FakeServer(upgrade_statuses=[401, 401, 401])
    async with fake(server) as target:
        with pytest.raises(AuthenticationNeeded, match="authentication needed") as info:
            await open_socket(target, open_timeout=5)
    assert server.tickets_issued == 2
    assert TOKEN not in str(info.value)


async def test_a_refused_token_is_authentication_needed_without_the_token() -> None:
    server = FakeServer(ticket_status=401)
    async with fake(server) as target:
        with pytest.raises(AuthenticationNeeded) as info:
            await open_socket(target, open_timeout=5)
    assert "HTTP 401" in str(info.value) and TOKEN not in str(info.value)


async def test_nothing_listening_is_a_retryable_connect_error() -> None:
    async with fake(FakeServer()) as target:
        dead = target
    with pytest.raises(ConnectError, match="cannot reach"):
        await open_socket(dead, open_timeout=2)
