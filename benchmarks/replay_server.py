"""A minimal T3 V2 server that replays a recorded world, for the ingest benchmark.

Run as `python -m benchmarks.replay_server --threads N --events E`; it prints
`LISTENING <url>`, then one JSON line per consumer run: `sync_s` (socket open to every expected
stream synchronized), `burst_s` (first burst frame sent to the last one acked), `items`,
`go_at` (`time.monotonic()` when the burst started: one clock for every process here).

Per connection it answers `server.getConfig`, serves each stream its snapshot and
`synchronized`, and once the shell and every family thread are synchronized it replays the
burst: one item per Chunk, in recorded order per stream, never a next Chunk on a stream before
the previous one is acked (t3-protocol §3.3). Frames are encoded once, before any timing, so
both consumers receive the same bytes and the server's own work per frame is the minimum.

With `--rate R`, item i of the burst is due at `go_at + i / R`, and the items of a stream
that are due when its previous Chunk is acked travel together in the next one (the coalescing
a live server does). With `--wait-go` the burst also waits for a `go` line on stdin.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from benchmarks.world import World, WorldSpec, build_world, dumps
from t3tui.backend.http import json_response

DESCRIPTOR = {
    "environmentId": "env-bench", "label": "replay", "serverVersion": "bench",
    "platform": {"os": "linux", "arch": "x64"}, "orchestrationProtocolVersion": 2,
    "capabilities": {},
}
SHELL = "shell"


class Recording:
    """The world's items pre-encoded per stream: snapshot, then (burst index, item) in order."""

    def __init__(self, world: World, rate: float | None = None, wait_go: bool = False) -> None:
        self.world = world
        self.rate = rate
        self.released = asyncio.Event()  # the `go` line (only waited for with `wait_go`)
        if not wait_go:
            self.released.set()
        self.snapshots: dict[str, str] = {SHELL: dumps(world.shell_snapshot)}
        self.snapshots.update({tid: dumps(item) for tid, item in world.thread_snapshots.items()})
        self.burst: dict[str, list[tuple[int, str]]] = {key: [] for key in self.snapshots}
        for index, (stream, item) in enumerate(world.burst):
            self.burst[SHELL if stream is None else stream].append((index, dumps(item)))
        self.items = len(world.burst)


def process_request(connection: ServerConnection, request: Request) -> Response | None:
    path = request.path.split("?", 1)[0]
    if path == "/.well-known/t3/environment":
        return json_response(200, DESCRIPTOR)
    if path == "/api/auth/websocket-ticket":
        return json_response(200, {"ticket": "wst_bench", "expiresAt": "2099-01-01T00:00:00.000Z"})
    if path == "/ws":
        return None
    return json_response(404, {"code": "not_found"})


class Replay:
    """One consumer connection."""

    def __init__(self, ws: ServerConnection, rec: Recording) -> None:
        self.ws, self.rec = ws, rec
        self.opened = time.perf_counter()
        self.acks: dict[str, asyncio.Future[None]] = {}
        self.synced: set[str] = set()
        self.go = asyncio.Event()
        self.synced_at = self.go_at = self.go_mono = 0.0
        self.pending = len(rec.snapshots)
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.done = asyncio.get_running_loop().create_future()

    async def serve(self) -> None:
        try:
            async for text in self.ws:
                data = json.loads(text)
                for msg in data if isinstance(data, list) else [data]:
                    await self.handle(msg)
        except ConnectionClosed:
            pass
        finally:
            for task in self.tasks.values():
                task.cancel()

    async def handle(self, msg: dict[str, Any]) -> None:
        tag = msg.get("_tag")
        if tag == "Ack":
            future = self.acks.pop(msg["requestId"], None)
            if future is not None and not future.done():
                future.set_result(None)
        elif tag == "Ping":
            await self.ws.send('{"_tag":"Pong"}')
        elif tag == "Request":
            await self.request(msg["id"], msg["tag"], msg.get("payload") or {})
        elif tag == "Interrupt":
            rid = msg["requestId"]
            task = self.tasks.pop(rid, None)
            if task is not None:
                task.cancel()
            await self.ws.send(dumps({"_tag": "Exit", "requestId": rid, "exit": {
                "_tag": "Failure", "cause": [{"_tag": "Interrupt", "fiberId": None}]}}))

    async def request(self, rid: str, method: str, payload: dict[str, Any]) -> None:
        if method == "server.getConfig":
            value = {"environment": DESCRIPTOR, "cwd": "/", "providers": [], "settings": {}}
            await self.ws.send(dumps({"_tag": "Exit", "requestId": rid,
                                      "exit": {"_tag": "Success", "value": value}}))
            return
        key = SHELL if method == "orchestration.subscribeShell" else payload.get("threadId")
        if method not in ("orchestration.subscribeShell", "orchestration.subscribeThread") \
                or key not in self.rec.snapshots:
            error = {"_tag": "OrchestrationV2GetThreadProjectionError", "threadId": str(key),
                     "message": f"Unknown thread {key}."}
            await self.ws.send(dumps({"_tag": "Exit", "requestId": rid, "exit": {
                "_tag": "Failure", "cause": [{"_tag": "Fail", "error": error}]}}))
            return
        self.tasks[rid] = asyncio.create_task(self.stream(rid, key))

    async def chunk(self, rid: str, *items: str) -> None:
        future = self.acks[rid] = asyncio.get_running_loop().create_future()
        await self.ws.send(f'{{"_tag":"Chunk","requestId":"{rid}","values":[{",".join(items)}]}}')
        await future

    async def stream(self, rid: str, key: str) -> None:
        await self.chunk(rid, self.rec.snapshots[key])
        await self.chunk(rid, '{"kind":"synchronized"}')
        if key not in self.synced:
            self.synced.add(key)
            if len(self.synced) == len(self.rec.snapshots):
                self.synced_at = time.perf_counter()
                await self.rec.released.wait()
                self.go_at, self.go_mono = time.perf_counter(), time.monotonic()
                self.go.set()
        await self.go.wait()
        items = self.rec.burst[key]
        if self.rec.rate is None:
            for _, item in items:
                await self.chunk(rid, item)
        else:
            await self.paced(rid, items, self.rec.rate)
        self.pending -= 1
        if self.pending == 0 and not self.done.done():
            self.done.set_result(time.perf_counter())

    async def paced(self, rid: str, items: list[tuple[int, str]], rate: float) -> None:
        """Send each item when it is due; the ones due meanwhile go together."""
        i = 0
        while i < len(items):
            delay = self.go_mono + items[i][0] / rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            now = time.monotonic()
            j = i + 1
            while j < len(items) and self.go_mono + items[j][0] / rate <= now:
                j += 1
            await self.chunk(rid, *(text for _, text in items[i:j]))
            i = j


async def main_async(spec: WorldSpec, rate: float | None, wait_go: bool) -> None:
    rec = Recording(build_world(spec), rate, wait_go)

    async def handler(ws: ServerConnection) -> None:
        replay = Replay(ws, rec)
        serving = asyncio.create_task(replay.serve())
        finished, _ = await asyncio.wait({serving, replay.done},
                                         return_when=asyncio.FIRST_COMPLETED)
        if replay.done in finished:
            end = replay.done.result()
            print(dumps({"sync_s": replay.synced_at - replay.opened,
                         "burst_s": end - replay.go_at, "items": rec.items,
                         "go_at": replay.go_mono}), flush=True)
            if wait_go:
                rec.released.clear()  # the next connection waits for its own `go`
            await serving
        else:
            print(dumps({"error": "the consumer left before the burst was acked"}), flush=True)
            replay.done.cancel()

    async with serve(handler, "127.0.0.1", 0, process_request=process_request,
                     max_size=None, compression=None, ping_interval=None) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"LISTENING http://127.0.0.1:{port}", flush=True)
        # `go` releases a waiting burst; stop when the parent closes our stdin.
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while line := await reader.readline():
            if line.strip() == b"go":
                rec.released.set()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--active", type=int, default=0,
                        help="top-level threads with a running run (watched for activity)")
    parser.add_argument("--events", type=int, default=WorldSpec(threads=0).events)
    parser.add_argument("--seed", type=int, default=WorldSpec(threads=0).seed)
    parser.add_argument("--item-ms", type=float, default=WorldSpec(threads=0).item_ms)
    parser.add_argument("--probe-every", type=int, default=0)
    parser.add_argument("--rate", type=float, default=None, help="burst items per second")
    parser.add_argument("--wait-go", action="store_true", help="burst waits for `go` on stdin")
    args = parser.parse_args(argv)
    spec = WorldSpec(threads=args.threads, events=args.events, seed=args.seed,
                     item_ms=args.item_ms, probe_every=args.probe_every, active=args.active)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main_async(spec, args.rate, args.wait_go))
    return 0


if __name__ == "__main__":
    sys.exit(main())
