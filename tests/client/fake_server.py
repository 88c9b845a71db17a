"""A hand-steered T3 server: real HTTP routes and websocket, answers chosen by the test.

The reference backend always behaves; this one speaks other protocol versions, answers 426 or
401, and runs a script per socket (duplicates, drops) to test the client's edge cases.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from t3tui.client.secret import Secret, Target
from tests.client.scripted import Peer

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
    # one script per accepted socket, in order; a socket beyond them just stays open
    scripts: list[Callable[[Peer], Awaitable[None]]] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)

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
        if not server.scripts:
            await ws.wait_closed()
            return
        try:
            await server.scripts.pop(0)(Peer(ws))
        except ConnectionClosed:
            pass
        except Exception as exc:  # the test asserts `server.errors == []`
            server.errors.append(exc)

    async with serve(handler, "127.0.0.1", 0, process_request=server.respond) as running:
        port = running.sockets[0].getsockname()[1]
        yield Target(f"http://127.0.0.1:{port}", Secret(TOKEN))
