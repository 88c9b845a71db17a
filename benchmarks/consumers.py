"""The two consumers of a recorded stream: the bare floor and the t3tui client.

Both run until cancelled: the replay server decides when the burst is over (it measures), and
the driver then stops the consumer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from websockets.asyncio.client import connect

from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session, StreamUpdate
from t3tui.client.state import Live
from t3tui.model import Supervisor

SUBSCRIBE = '{{"_tag":"Request","id":"{id}","tag":"{tag}","payload":{payload},"headers":[]}}'


@dataclass
class FloorCount:
    items: int = 0
    frames: int = 0
    sync_frames: int = -1  # the snapshot and `synchronized` chunks of every stream
    synced_cpu: float | None = None  # the process's CPU time once they all arrived


async def floor(ws_url: str, threads: Iterable[str], count: FloorCount,
                acks_together: bool = False) -> None:
    """websockets receive + `json.loads` + Ack per Chunk: the least any client must do.

    `acks_together`: the Acks of the Chunks read without suspending are written in one
    socket write when the loop is next let in, as the t3tui client writes them
    (`t3tui.client.acks`, written again here in its barest form): the least a client must do
    once it is known that the Acks need not each be their own write."""
    loop = asyncio.get_running_loop()
    queued: list[bytes] = []

    def flush() -> None:
        for data in queued:
            ws.protocol.send_text(data)
        queued.clear()
        ws.transport.write(b"".join(ws.protocol.data_to_send()))

    async with connect(f"{ws_url}?wsTicket=wst_bench&orchestrationProtocol=2", max_size=None,
                       compression=None, ping_interval=None) as ws:
        payload = json.dumps({"requestCompletionMarker": True})
        await ws.send(SUBSCRIBE.format(id="1", tag="orchestration.subscribeShell", payload=payload))
        for i, tid in enumerate(threads, start=2):
            payload = json.dumps({"threadId": tid, "requestCompletionMarker": True})
            await ws.send(SUBSCRIBE.format(id=i, tag="orchestration.subscribeThread",
                                           payload=payload))
        async for text in ws:
            data = json.loads(text)
            for msg in data if isinstance(data, list) else [data]:
                if msg.get("_tag") == "Chunk":
                    count.frames += 1
                    count.items += len(msg["values"])
                    if count.frames == count.sync_frames:
                        count.synced_cpu = time.process_time()
                    ack = json.dumps({"_tag": "Ack", "requestId": msg["requestId"]})
                    if not acks_together:
                        await ws.send(ack)
                        continue
                    if not queued:
                        loop.call_soon(flush)
                    queued.append(ack.encode())


@dataclass
class ClientRun:
    """The t3tui consumer: a `Session` feeding a `Supervisor`, and after every applied batch
    the rows of the threads it dirtied (which runs the detectors), as the TUI does."""

    base_url: str
    now: datetime = field(default_factory=lambda: datetime.now(UTC))  # the world's "now"
    rows_built: int = 0                 # rows built once every stream is synchronized
    updates: int = 0
    synced_cpu: float | None = None     # the process's CPU time when the session went Live
    supervisor: Supervisor = field(default_factory=Supervisor)
    session: Session | None = None

    def on_update(self, _update: StreamUpdate) -> None:
        self.updates += 1
        sup = self.supervisor
        now = self.now
        live = self.session is not None and isinstance(self.session.state.value, Live)
        if live and self.synced_cpu is None:
            self.synced_cpu = time.process_time()
        for tid in sup.take_dirty():
            if sup.row(tid, now) is not None and live:
                self.rows_built += 1

    async def run(self) -> None:
        target = Target(self.base_url, Secret("bench-token"))
        self.session = Session(target, self.supervisor, ping_interval=60.0)
        self.session.on_update(self.on_update)
        await self.session.run()

    async def stop(self) -> None:
        if self.session is not None:
            await self.session.stop()


FRAME_S = 1 / 60  # the app's frame cadence (t3tui.tui.app.render.FRAME_S: 60 a second)


@dataclass
class FrameClientRun(ClientRun):
    """The t3tui consumer as the app runs it: batches only mark rows; at most 60 times a
    second, a frame asks `changed_rows(now)` (the rows whose facts or time changed), so a
    thread's rules run once per frame in which its facts changed, not once per batch."""

    frames: int = 0

    def on_update(self, _update: StreamUpdate) -> None:
        self.updates += 1
        if self.synced_cpu is None and self.session is not None \
                and isinstance(self.session.state.value, Live):
            # The frame that shows the synchronized tree belongs to the sync, as the floor's
            # decode of it does: left to the ticker, it fell before or after this moment by
            # chance, and after it counted every row the sync made (the first tree; the
            # shell's `synchronized` lifting each row's `stale` overlay) as the burst's.
            self.supervisor.changed_rows(self.now)
            self.synced_cpu = time.process_time()

    def frame(self) -> None:
        live = self.session is not None and isinstance(self.session.state.value, Live)
        rows = self.supervisor.changed_rows(self.now)
        self.frames += 1
        if live:
            self.rows_built += sum(1 for row in rows.values() if row is not None)

    async def run(self) -> None:
        async def frames() -> None:
            while True:
                await asyncio.sleep(FRAME_S)
                self.frame()

        ticker = asyncio.create_task(frames())
        try:
            await super().run()
        finally:
            await cancel(ticker)


async def cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
