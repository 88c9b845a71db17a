"""Record every websocket frame an in-process backend sends and receives, per connection.

It patches `websockets` (not our backend's code): every text frame a server connection writes
goes through its sans-I/O `ServerProtocol.send_text` (`Connection.send` and `broadcast` alike),
every frame it reads through `ServerConnection.recv`; so what is recorded is exactly what went
over the socket, whatever the backend's send path looks like.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection
from websockets.server import ServerProtocol

from t3tui.protocol.contract import WireCheck


class WireTap:
    """One `WireCheck` per server connection, fed in wire order."""

    def __init__(self) -> None:
        self.checks: dict[int, WireCheck] = {}
        self.frames = 0

    def _check(self, protocol: Any) -> WireCheck:
        return self.checks.setdefault(id(protocol), WireCheck())

    def sent(self, conn: Any, data: Any) -> None:
        if isinstance(data, str):
            self.frames += 1
            self._check(conn).server(data)

    def received(self, conn: Any, data: Any) -> None:
        if isinstance(data, str):
            self.frames += 1
            self._check(conn).client(data)

    @property
    def problems(self) -> list[str]:
        return [p for check in self.checks.values() for p in check.problems]

    @property
    def server_problems(self) -> list[str]:
        """What the server got wrong (not a test's deliberately bad client frames)."""
        return [p for check in self.checks.values() for p in check.server_problems]

    def counts(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for check in self.checks.values():
            for key, n in check.counts.items():
                total[key] = total.get(key, 0) + n
        return total


@contextmanager
def wire_tap(monkeypatch: pytest.MonkeyPatch) -> Iterator[WireTap]:
    tap = WireTap()
    send_text, recv = ServerProtocol.send_text, ServerConnection.recv

    def tapped_send_text(self: ServerProtocol, data: bytes, *args: Any, **kw: Any) -> None:
        tap.sent(self, bytes(data).decode())
        send_text(self, data, *args, **kw)

    async def tapped_recv(self: ServerConnection, *args: Any, **kw: Any) -> Any:
        data = await recv(self, *args, **kw)
        tap.received(self.protocol, data)
        return data

    with monkeypatch.context() as patch:
        patch.setattr(ServerProtocol, "send_text", tapped_send_text)
        patch.setattr(ServerConnection, "recv", tapped_recv)
        yield tap
