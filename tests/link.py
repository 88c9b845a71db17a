"""A TCP link between a client and the reference backend that a test can cut and mend: what a
laptop's network is across a suspend (the socket dead, no new one until the network is back).

`Link(port)` listens on 127.0.0.1:0 and relays every connection to `port`; `cut()` drops every
relayed connection and refuses new ones (closed at once) until `mend()`. `hold()` stops
forwarding without closing anything (a peer gone without a FIN: a pulled cable, a suspended
server, a NAT that forgot the flow): both ends keep an open socket and hear nothing, until
`release()` (or a `cut()`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class Link:
    def __init__(self, port: int) -> None:
        self.target = port
        self.up = True
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cut(self) -> None:
        self.up = False
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()
        self._flowing.set()  # a held relay finds its sockets gone and ends

    def hold(self) -> None:
        """Forward nothing more either way, closing nothing: what was read stays unsent."""
        self._flowing.clear()

    def release(self) -> None:
        self._flowing.set()

    def mend(self) -> None:
        self.up = True

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.up:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, ConnectionError):
                while data := await src.read(65536):
                    await self._flowing.wait()
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort()

        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        finally:
            self._writers -= {writer, up_writer}

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Link]:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        try:
            yield self
        finally:
            self.cut()
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)
