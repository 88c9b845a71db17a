"""Child process of the fan-out benchmark, in one of two modes.

`python -m benchmarks.fanout_server backend --threads T`: the reference backend (store,
engine, transport) on 127.0.0.1:0 with T threads; the token comes from `T3TUI_BENCH_TOKEN`.
On a stdin line `go E` it writes E `turn-item.updated` events round-robin over the threads,
one engine batch (listeners, subscriptions, one append to the store, committed in a group
with the appends made while the previous commit ran) per event, yielding to the event loop
between events as live provider progress does; then, once every event is committed, prints
`{"produce_s": ...}`.

`python -m benchmarks.fanout_server bare FRAMES.json`: a bare websockets server. Each
connection gets the recorded catch-up frames once it has sent its requests; on `go` every
recorded burst frame is sent to every connection with `websockets.broadcast` (no ack latch,
no encoding: the floor of fan-out); then prints `{"produce_s": ...}`. `load BURST.json`
replaces the burst frames (with those the backend sent in its latest run, see fanout.py).

Both print `LISTENING <url>` first and stop when stdin closes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

from benchmarks.replay_server import process_request
from benchmarks.world import OUTPUT, T0, dumps, iso

TOKEN_ENV = "T3TUI_BENCH_TOKEN"
ITEMS_PER_THREAD = 50  # item ids are reused, so projections (and late snapshots) stay small


def thread_ids(count: int) -> list[str]:
    return [f"thread-fan-{i:02d}" for i in range(count)]


async def serve_commands(on_go: Callable[[int], Awaitable[float]],
                         on_load: Callable[[str], None] | None = None) -> None:
    """Read `go E` lines from stdin until it closes; answer each with the production time.
    `load PATH` hands PATH to `on_load` and answers `{"loaded": true}`.

    `profile PATH` profiles the server (pyinstrument) until the next `report`, which writes
    the profile to PATH as text.
    """
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    profiler: Any = None
    target = ""
    while line := (await reader.readline()).decode().split():
        if line[0] == "go":
            produce_s = await on_go(int(line[1]))
            print(dumps({"produce_s": produce_s}), flush=True)
        elif line[0] == "load" and on_load is not None:
            on_load(line[1])
            print(dumps({"loaded": True}), flush=True)
        elif line[0] == "profile":
            from pyinstrument import Profiler

            target, profiler = line[1], Profiler(interval=0.0005, async_mode="disabled")
            profiler.start()
        elif line[0] == "report" and profiler is not None:
            profiler.stop()
            Path(target).write_text(profiler.output_text(color=False, unicode=False))
            profiler = None


async def run_backend(threads: int) -> None:
    from t3tui.backend.server import BackendOptions, open_backend

    token = os.environ[TOKEN_ENV]
    tids = thread_ids(threads)
    with tempfile.TemporaryDirectory(prefix="t3tui-bench-") as temp:
        options = BackendOptions(data_dir=Path(temp), token=token, port=0)
        async with open_backend(options) as backend:
            engine = backend.engine
            for tid in tids:
                await engine.dispatch({
                    "type": "thread.create", "commandId": f"create-{tid}", "threadId": tid,
                    "projectId": "project-1", "title": f"Fan-out {tid}",
                    "modelSelection": {"instanceId": "codex", "model": "gpt-5"},
                    "createdBy": "user", "creationSource": "web", "runtimeMode": "full-access",
                    "interactionMode": "default", "branch": None, "worktreePath": None})
            counter = 0

            async def go(events: int) -> float:
                nonlocal counter
                start = time.perf_counter()
                for _ in range(events):
                    counter += 1
                    tid = tids[counter % len(tids)]
                    item = turn_item(tid, counter)
                    with engine.core.batch() as batch:
                        batch.add(tid, "turn-item.updated", item, run_id=f"run-{tid}")
                    await asyncio.sleep(0)
                # produced means committed: the store commits in groups, behind the engine
                await engine.core.written(engine.store.ticket)
                return time.perf_counter() - start

            print(f"LISTENING {backend.url}", flush=True)
            await serve_commands(go)


def turn_item(tid: str, n: int) -> dict[str, Any]:
    """A running command's output update, as live provider progress writes it."""
    at = iso(T0)
    return {"id": f"item-{tid}-{n % ITEMS_PER_THREAD}", "threadId": tid, "runId": f"run-{tid}",
            "nodeId": None, "providerThreadId": None, "providerTurnId": None,
            "nativeItemRef": None, "parentItemId": None, "ordinal": n, "title": "pytest -x",
            "startedAt": at, "completedAt": None, "updatedAt": at, "status": "running",
            "type": "command_execution", "input": "python -m pytest -x", "output": OUTPUT}


async def run_bare(frames_path: str) -> None:
    recorded = json.loads(Path(frames_path).read_text())
    catch_up, burst, requests = recorded["catch_up"], recorded["burst"], recorded["requests"]

    def load(path: str) -> None:
        nonlocal burst
        burst = json.loads(Path(path).read_text())
    connections: set[ServerConnection] = set()

    async def handler(ws: ServerConnection) -> None:
        seen = 0
        try:
            async for text in ws:
                if '"Request"' in text:
                    seen += 1
                    if seen == requests:
                        for frame in catch_up:
                            await ws.send(frame)
                        connections.add(ws)
        except ConnectionClosed:
            pass  # the benchmark drops its clients after each run
        finally:
            connections.discard(ws)

    async def go(_events: int) -> float:
        start = time.perf_counter()
        for i, frame in enumerate(burst):
            broadcast(connections, frame)
            if i % 16 == 15:
                await asyncio.sleep(0)  # let the acks in, as a live server would
        return time.perf_counter() - start

    async with serve(handler, "127.0.0.1", 0, process_request=process_request, max_size=None,
                     compression=None, ping_interval=None) as server:
        print(f"LISTENING http://127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
        await serve_commands(go, load)


def main(argv: list[str]) -> int:
    if argv[:1] == ["backend"]:
        threads = int(argv[argv.index("--threads") + 1]) if "--threads" in argv else 4
        asyncio.run(run_backend(threads))
    elif argv[:1] == ["bare"] and len(argv) == 2:
        asyncio.run(run_bare(argv[1]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
