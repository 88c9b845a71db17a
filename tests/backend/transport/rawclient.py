"""A deliberately thin websocket client for transport tests: raw frames in, raw JSON out.

It does exactly what a test tells it to (no automatic acks unless asked, no retries), so tests
can see the server's framing as it is on the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections import defaultdict
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

DEFAULT_TIMEOUT = 10.0


async def get_ticket(base_url: str, token: str) -> str:
    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{base_url}/api/auth/websocket-ticket", headers={"Authorization": f"Bearer {token}"}
        )
    response.raise_for_status()
    return response.json()["ticket"]


def ws_url(base_url: str, ticket: str | None, protocol: str | None = "2") -> str:
    params = []
    if ticket is not None:
        params.append(f"wsTicket={ticket}")
    if protocol is not None:
        params.append(f"orchestrationProtocol={protocol}")
    return "ws" + base_url.removeprefix("http") + "/ws?" + "&".join(params)


class RawRpc:
    """One socket; server messages are sorted into per-request queues as they arrive."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self._by_request: dict[str, asyncio.Queue[dict[str, Any]]] = defaultdict(asyncio.Queue)
        self.control: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.frames: list[dict[str, Any]] = []
        self.auto_ack: set[str] = set()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, base_url: str, token: str) -> RawRpc:
        ticket = await get_ticket(base_url, token)
        return cls(await connect(ws_url(base_url, ticket), max_size=None))

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader

    async def __aenter__(self) -> RawRpc:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _read(self) -> None:
        async for text in self.ws:
            message = json.loads(text)
            self.frames.append(message)
            request_id = message.get("requestId")
            if request_id is None:
                await self.control.put(message)
                continue
            if message["_tag"] == "Chunk" and request_id in self.auto_ack:
                await self.send({"_tag": "Ack", "requestId": request_id})
            await self._by_request[request_id].put(message)

    async def send(self, message: Any) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def request(self, tag: str, payload: Any, *, auto_ack: bool = False) -> str:
        request_id = str(next(self._ids))
        if auto_ack:
            self.auto_ack.add(request_id)
        await self.send(
            {"_tag": "Request", "id": request_id, "tag": tag, "payload": payload, "headers": []}
        )
        return request_id

    async def ack(self, request_id: str) -> None:
        await self.send({"_tag": "Ack", "requestId": request_id})

    async def next(self, request_id: str, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        """The next message for a request."""
        return await asyncio.wait_for(self._by_request[request_id].get(), timeout)

    def drain(self, request_id: str) -> list[dict[str, Any]]:
        """Messages for a request that already arrived, without waiting."""
        queue = self._by_request[request_id]
        out = []
        while not queue.empty():
            out.append(queue.get_nowait())
        return out

    async def next_control(self, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        """The next message without a request id (`Pong`, `Defect`)."""
        return await asyncio.wait_for(self.control.get(), timeout)

    async def call(
        self, tag: str, payload: Any, timeout: float = DEFAULT_TIMEOUT
    ) -> dict[str, Any]:
        """A unary call: its `Exit.exit` (`{"_tag": "Success"|"Failure", ...}`)."""
        request_id = await self.request(tag, payload)
        message = await self.next(request_id, timeout)
        assert message["_tag"] == "Exit", message
        return message["exit"]

    async def ok(self, tag: str, payload: Any, timeout: float = DEFAULT_TIMEOUT) -> Any:
        """A unary call that must succeed: its value."""
        exit_ = await self.call(tag, payload, timeout)
        assert exit_["_tag"] == "Success", exit_
        return exit_.get("value")

    async def items_until(
        self, request_id: str, predicate: Any, timeout: float = DEFAULT_TIMEOUT
    ) -> list[dict[str, Any]]:
        """Stream items (acked as they come) up to and including the chunk with a match."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        seen: list[dict[str, Any]] = []
        while True:
            message = await self.next(request_id, max(0.01, deadline - loop.time()))
            assert message["_tag"] == "Chunk", message
            if request_id not in self.auto_ack:
                await self.ack(request_id)
            seen.extend(message["values"])
            if any(predicate(item) for item in message["values"]):
                return seen
