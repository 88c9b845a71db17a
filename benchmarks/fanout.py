"""Benchmark 4: backend fan-out.

The reference backend (`benchmarks.fanout_server backend`, a child process) writes a stream of
live events while 1, 10 or 50 clients subscribe to the shell and to every thread. Measured
from the `go` to the moment every client has received every event: events/s delivered (all
clients together). Against it, side by side: a bare websockets server broadcasting the same
events to the same clients, two ways: (a) one Chunk per event, the events of the backend's
latest run with as many clients re-framed one to a Chunk (what the wire costs when nothing
coalesces; the same for every run, whatever framing the backend chose: the backend/bare ratio
of issue 11's table), and (b) the very frames client 0 received in that run (the store
commits in groups, so how many events a Chunk carries changes from run to run). The backend's
own production rate (the same events, no client, until all are committed) is shown too, since
it bounds (b) at one client.

The clients are cheap on purpose (they count events in the frame text and Ack each Chunk), so
what is measured is the server.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from benchmarks.common import Report, median, quiet_gc, ratio, run_cli
from benchmarks.consumers import cancel
from benchmarks.fanout_server import TOKEN_ENV, thread_ids
from benchmarks.procs import ChildServer

RUN_TIMEOUT = 120.0
REQUEST_ID = re.compile(r'"requestId":"([^"]+)"')
EVENT = '"kind":"event"'


@dataclass
class Fan:
    """One client's progress."""

    expected: int
    streams: int
    count: int = 0
    markers: int = 0
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    frames: list[str] | None = None   # set to a list to record what arrives


async def consume(url: str, threads: Sequence[str], fan: Fan) -> None:
    async with connect(url, max_size=None, compression=None, ping_interval=None) as ws:
        await ws.send(json.dumps({
            "_tag": "Request", "id": "1", "tag": "orchestration.subscribeShell",
            "payload": {"requestCompletionMarker": True}, "headers": []}))
        for i, tid in enumerate(threads, start=2):
            await ws.send(json.dumps({
                "_tag": "Request", "id": str(i), "tag": "orchestration.subscribeThread",
                "payload": {"threadId": tid, "requestCompletionMarker": True}, "headers": []}))
        async for text in ws:
            assert isinstance(text, str)
            if fan.frames is not None:
                fan.frames.append(text)
            if fan.ready.is_set():
                fan.count += text.count(EVENT)
                if fan.count >= fan.expected:
                    fan.done.set()
            elif '"kind":"synchronized"' in text:
                fan.markers += 1
                if fan.markers == fan.streams:
                    fan.ready.set()
            if text.startswith('{"_tag":"Chunk"') and (m := REQUEST_ID.search(text, 0, 200)):
                await ws.send(f'{{"_tag":"Ack","requestId":"{m.group(1)}"}}')


@dataclass
class Target:
    server: ChildServer
    token: str | None  # the backend wants a fresh ticket per connection; the bare server not

    async def url(self, http: httpx.AsyncClient) -> str:
        ticket = "wst_bench"
        if self.token is not None:
            response = await http.post(self.server.url + "/api/auth/websocket-ticket",
                                       headers={"Authorization": f"Bearer {self.token}"})
            response.raise_for_status()
            ticket = response.json()["ticket"]
        return f"{self.server.ws_url}?wsTicket={ticket}&orchestrationProtocol=2"


async def one_run(target: Target, clients: int, threads: Sequence[str], events: int,
                  record: bool = False) -> tuple[dict[str, float], list[Fan]]:
    fans = [Fan(expected=events, streams=1 + len(threads)) for _ in range(clients)]
    if record:
        fans[0].frames = []
    async with httpx.AsyncClient(timeout=30) as http:
        urls = [await target.url(http) for _ in fans]
    tasks = [asyncio.create_task(consume(u, threads, f)) for u, f in zip(urls, fans, strict=True)]
    try:
        await asyncio.wait_for(asyncio.gather(*(f.ready.wait() for f in fans)), RUN_TIMEOUT)
        start = time.perf_counter()
        await target.server.send(f"go {events}")
        await asyncio.wait_for(asyncio.gather(*(f.done.wait() for f in fans)), RUN_TIMEOUT)
        deliver_s = time.perf_counter() - start
        produced = await target.server.result(RUN_TIMEOUT)
    finally:
        for task in tasks:
            await cancel(task)
    return {"deliver_s": deliver_s, "produce_s": produced["produce_s"]}, fans


def burst_of(frames: list[str]) -> list[str]:
    """The frames from the first one carrying an event on (what `go` caused)."""
    start = next((i for i, f in enumerate(frames) if EVENT in f), len(frames))
    return frames[start:]


def one_chunk_per_event(burst: list[str]) -> list[str]:
    """The burst re-framed with one value per Chunk (the same values, in order)."""
    out = []
    for text in burst:
        msg = json.loads(text)
        values = msg.get("values") if isinstance(msg, dict) and msg.get("_tag") == "Chunk" \
            else None
        if not isinstance(values, list) or len(values) < 2:
            out.append(text)
            continue
        out += [json.dumps({**msg, "values": [v]}, separators=(",", ":")) for v in values]
    return out


async def load_burst(bare: ChildServer, path: Path, burst: list[str]) -> None:
    path.write_text(json.dumps(burst))
    await bare.send(f"load {path}")
    await bare.result(RUN_TIMEOUT)


async def produce_only(server: ChildServer, events: int) -> float:
    await server.send(f"go {events}")
    return float((await server.result(RUN_TIMEOUT))["produce_s"])


async def measure(client_counts: Sequence[int], threads: int, events: int,
                  repeats: int) -> Report:
    tids = thread_ids(threads)
    token = secrets.token_urlsafe(24)
    backend = ChildServer("benchmarks.fanout_server", "backend", "--threads", str(threads),
                          env={TOKEN_ENV: token})
    await backend.start()
    samples: dict[tuple[int, str], list[float]] = {}
    frame_counts: dict[int, list[int]] = {}
    produced: list[float] = []
    try:
        _, fans = await one_run(Target(backend, token), 1, tids, events, record=True)
        frames = fans[0].frames or []
        split = next(i for i, f in enumerate(frames) if EVENT in f)
        # the burst the bare server sends for k clients: the frames client 0 received in the
        # backend's latest run with k clients (how many events a Chunk carries depends on
        # the run's timing: the same bytes means that run's bytes)
        bursts = dict.fromkeys(client_counts, frames[split:])
        with tempfile.TemporaryDirectory(prefix="t3tui-bench-") as temp:
            path = Path(temp) / "frames.json"
            path.write_text(json.dumps({"catch_up": frames[:split], "burst": frames[split:],
                                        "requests": 1 + len(tids)}))
            async with ChildServer("benchmarks.fanout_server", "bare", str(path)) as bare:
                targets = {"backend": Target(backend, token), "bare": Target(bare, None),
                           "bare same frames": Target(bare, None)}
                for rep in range(repeats):
                    quiet_gc()
                    produced.append(await produce_only(backend, events))
                    for k in client_counts:
                        order = list(targets) if rep % 2 == 0 else list(reversed(targets))
                        for name in order:
                            if name != "backend":
                                burst = bursts[k] if name == "bare same frames" \
                                    else one_chunk_per_event(bursts[k])
                                await load_burst(bare, Path(temp) / "burst.json", burst)
                            quiet_gc()
                            result, fans = await one_run(targets[name], k, tids, events,
                                                         record=name == "backend")
                            samples.setdefault((k, name), []).append(
                                k * events / result["deliver_s"])
                            if name == "backend":
                                bursts[k] = burst_of(fans[0].frames or [])
                                frame_counts.setdefault(k, []).append(len(bursts[k]))
    finally:
        await backend.stop()
    report = Report(
        "fanout", f"reference backend vs bare broadcast of the same bytes ({events} events "
        f"over {threads} threads, median of {repeats} interleaved runs)",
        ["clients", "backend ev/s", "bare ev/s", "backend/bare", "bare same frames ev/s",
         "backend/same frames", "backend ev/s/client", "frames/event"])
    rate = median([events / s for s in produced])
    nan = float("nan")
    report.add(**{"clients": "0 (produce only)", "backend ev/s": rate, "bare ev/s": nan,
                  "backend/bare": nan, "bare same frames ev/s": nan, "backend/same frames": nan,
                  "backend ev/s/client": nan, "frames/event": nan})
    for k in client_counts:
        b, f = median(samples[(k, "backend")]), median(samples[(k, "bare")])
        same = median(samples[(k, "bare same frames")])
        report.add(**{"clients": k, "backend ev/s": b, "bare ev/s": f,
                      "backend/bare": ratio(b, f), "bare same frames ev/s": same,
                      "backend/same frames": ratio(b, same), "backend ev/s/client": b / k,
                      "frames/event": median([float(n) for n in frame_counts[k]]) / events})
    report.notes += [
        "ev/s: events delivered per second summed over clients, from `go` until every client "
        "has every event; each client subscribes to the shell and to every thread",
        "0 (produce only): the engine writing the same events with nobody subscribed, until "
        "every one is committed",
        "bare: the events of the backend's latest run with as many clients, one Chunk each "
        "(the wire's cost when nothing coalesces: issue 11's backend/bare)",
        "bare same frames: the very frames client 0 received in that run (frames/event: per "
        "client, the burst's frames over its events); at 1 client bounded by produce only",
    ]
    return report


def run(tiny: bool = False, repeats: int | None = None) -> list[Report]:
    if tiny:
        return [asyncio.run(measure([1, 3], threads=2, events=40, repeats=repeats or 1))]
    return [asyncio.run(measure([1, 10, 50], threads=4, events=1200, repeats=repeats or 3))]


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(argv, "Benchmark 4: backend fan-out vs bare broadcast",
                   lambda a: run(a.tiny, a.repeats))


if __name__ == "__main__":
    sys.exit(main())
