"""A scripted websocket peer for Connection tests: a real socket, a server we steer by hand."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from t3tui.client.connection import Connection

Script = Callable[["Peer"], Awaitable[None]]


class Peer:
    """The server side of one socket: read client messages, write server messages."""

    def __init__(self, ws: ServerConnection) -> None:
        self.ws = ws

    async def recv(self) -> dict[str, Any]:
        return json.loads(await self.ws.recv())

    async def recv_tag(self, tag: str) -> dict[str, Any]:
        """The next message with `_tag == tag`, skipping keepalive pings."""
        while True:
            message = await self.recv()
            if message["_tag"] == tag:
                return message
            if message["_tag"] != "Ping":
                raise AssertionError(f"expected {tag}, got {message}")

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))


@asynccontextmanager
async def scripted(script: Script, *, ping_interval: float = 5.0) -> AsyncIterator[Connection]:
    """A `Connection` to a loopback server that runs `script` for the socket."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def handler(ws: ServerConnection) -> None:
        try:
            await script(Peer(ws))
        except ConnectionClosed:
            pass  # the client hung up: the end of every script that loops forever
        except Exception as exc:  # surfaced to the test through `done`
            if not done.done():
                done.set_exception(exc)
            return
        if not done.done():
            done.set_result(None)
        await ws.wait_closed()

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        ws = await connect(f"ws://127.0.0.1:{port}", ping_interval=None)
        async with Connection(ws, ping_interval=ping_interval) as conn:
            conn.script_done = done  # type: ignore[attr-defined]
            yield conn
        if done.done() and done.exception() is not None:
            raise done.exception()  # type: ignore[misc]
