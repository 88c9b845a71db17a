"""Benchmark 3: the Textual app under load, headless (`App.run_test()`), on a real socket.

- Event to screen: the app holds 5,000 threads; the replay server (a child process) sends
  500 items/s. Every 25th is a probe: a shell update that retitles one of the threads at the
  top of the tree to `probe <n>`. Latency = when that title is first painted (a wrapper around
  `ThreadTree.render_line`, the Line API hook every painted line goes through) minus when the
  server was due to send the item (`time.monotonic()`, one clock for both processes).
- Key to screen: during the same load, `down`/`up` presses; latency = first paint of the tree
  with the cursor on its new line, minus the moment just before the key was sent.
- First full tree: from starting the app against a 10,000-thread server to the first paint
  once the tree holds every thread, against the time to decode that snapshot frame
  (`json.loads`, and `json.loads` + the protocol models) in the same process. Also the
  app process's CPU until that paint against the decode's CPU: a loaded machine stretches
  wall times (the same first tree 1.4-4.8 s at load 3-7) far more than CPU times.

Each app runs under the garbage-collector policy `t3tui`'s start takes for it
(`t3tui.client.collector`), taken afresh for each app as a new process would, and so does the
decode it is compared with: the benchmark measures the app as users run it.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from textual import events

from benchmarks.common import (
    Report,
    as_the_cli,
    median,
    percentile,
    quiet_gc,
    ratio,
    run_cli,
)
from benchmarks.procs import ChildServer
from benchmarks.world import T0, WorldSpec, build_world, dumps
from t3tui.client.secret import Secret, Target
from t3tui.model import Supervisor
from t3tui.protocol.stream import decode_shell_item
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.render import Renderer
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.thread_tree import ThreadTree

PROBE = re.compile(r"probe (\d+)")
SIZE = (140, 45)
WAIT_TIMEOUT = 240.0


@dataclass
class PaintWatch:
    """Times of painted tree lines: first sight of each probe, and (time, cursor line, the
    process's CPU time then)."""

    probes: dict[int, float] = field(default_factory=dict)
    paints: list[tuple[float, int, float]] = field(default_factory=list)

    def install(self) -> Callable[[], None]:
        original = ThreadTree.render_line
        watch = self

        def render_line(tree: ThreadTree, y: int) -> Any:
            strip = original(tree, y)
            now = time.monotonic()
            watch.paints.append((now, tree.cursor_line, time.process_time()))
            text = strip.text
            if "probe " in text and (m := PROBE.search(text)):
                watch.probes.setdefault(int(m.group(1)), now)
            return strip

        ThreadTree.render_line = render_line  # type: ignore[method-assign]
        return lambda: setattr(ThreadTree, "render_line", original)

    def first_paint_after(self, start: float, cursor: int | None = None) -> float | None:
        for at, line, _cpu in self.paints:
            if at >= start and (cursor is None or line == cursor):
                return at
        return None

    def cpu_at(self, at: float) -> float:
        """The process's CPU time at the paint at monotonic time `at`."""
        return next(cpu for when, _line, cpu in self.paints if when >= at)


class Timed:
    """Wraps methods on their classes to record how long each call takes (seconds)."""

    def __init__(self, targets: dict[str, tuple[type, str]]) -> None:
        self.targets = targets
        self.calls: dict[str, list[float]] = {name: [] for name in targets}
        self._saved: list[tuple[type, str, Any]] = []

    def install(self) -> Callable[[], None]:
        for name, (cls, attr) in self.targets.items():
            original = getattr(cls, attr, None)
            if original is None:
                continue  # not in this version of the code (A/B runs against older commits)
            self._saved.append((cls, attr, original))
            setattr(cls, attr, self._wrap(name, original))
        return self.restore

    def _wrap(self, name: str, original: Any) -> Any:
        calls = self.calls[name]

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                calls.append(time.perf_counter() - start)

        return timed

    def restore(self) -> None:
        for cls, attr, original in reversed(self._saved):
            setattr(cls, attr, original)
        self._saved.clear()


def press(app: SupervisorApp, key: str) -> None:
    """A key event posted as the terminal driver posts it. Not `Pilot.press`: that also waits
    for every widget to go idle, which under a steady load paces the samples to a handful."""
    event = events.Key(key, None)
    event.set_sender(app)
    app.post_message(event)


def world_clock(offset: list[float]) -> Callable[[], datetime]:
    """The app's clock in world time: T0 until the burst's start (`offset[0]`, monotonic;
    inf before it), then T0 plus the time since. It never runs backwards: it used to run
    from the app's start and jump back to T0 at the burst's start, which no real clock does,
    and which made the app re-derive every row it had cached (a row derived at a later
    moment does not serve an earlier one) just as the load began."""
    return lambda: T0 + timedelta(seconds=max(0.0, time.monotonic() - offset[0]))


async def until(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout:g}s")
        await asyncio.sleep(0.01)
    return value


def new_app(server: ChildServer, offset: list[float]) -> SupervisorApp:
    source = LiveSource(Target(server.url, Secret("bench-token")), ping_interval=60.0)
    return SupervisorApp(source, clock=world_clock(offset))


async def first_tree(server: ChildServer, threads: int,
                     watch: PaintWatch) -> tuple[float, float]:
    """Seconds from starting the app to the first paint of a tree holding every thread, and
    the process's CPU seconds over that time."""
    offset = [time.monotonic()]
    cpu = time.process_time()
    start = time.monotonic()
    app = new_app(server, offset)
    async with app.run_test(size=SIZE):
        tree = app.query_one(ThreadTree)
        await until(lambda: len(tree.nodes) >= threads, WAIT_TIMEOUT, "the full tree")
        full = time.monotonic()
        painted = await until(lambda: watch.first_paint_after(full), WAIT_TIMEOUT, "a paint")
        await server.result(WAIT_TIMEOUT)  # the (tiny) burst was acked: the run is over
    return painted - start, watch.cpu_at(painted) - cpu


def decode_times(frame: str) -> tuple[float, float, float]:
    """(json.loads, json.loads + protocol decode, the CPU time of both) of the snapshot
    frame, in seconds."""
    cpu = time.process_time()
    t0 = time.perf_counter()
    data = json.loads(frame)
    t1 = time.perf_counter()
    decode_shell_item(data["values"][0])
    t2 = time.perf_counter()
    return t1 - t0, t2 - t0, time.process_time() - cpu


@dataclass
class LoadResult:
    events: list[float]
    keys: list[float]
    probes: int
    seen: int
    first_tree_s: float


async def under_load(server: ChildServer, spec: WorldSpec, rate: float,
                     watch: PaintWatch, press_every: float) -> LoadResult:
    probes = build_world(spec).probes()
    offset = [math.inf]  # the world's clock stands at T0 until the burst starts
    start = time.monotonic()
    app = new_app(server, offset)
    keys: list[float] = []
    async with app.run_test(size=SIZE):
        tree = app.query_one(ThreadTree)
        await until(lambda: len(tree.nodes) >= spec.threads, WAIT_TIMEOUT, "the full tree")
        first = time.monotonic() - start
        offset[0] = time.monotonic()
        await server.send("go")
        result = asyncio.create_task(server.result(WAIT_TIMEOUT))
        down = True
        while not result.done():
            expected = tree.cursor_line + (1 if down else -1)
            sent = time.monotonic()
            press(app, "down" if down else "up")
            painted = await until(lambda e=expected, s=sent: watch.first_paint_after(s, e),
                                  WAIT_TIMEOUT, "the cursor painted")
            keys.append(painted - sent)
            down = not down
            with suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(result), press_every)
        go_at = (await result)["go_at"]
    events = [watch.probes[int(title.split()[1])] - (go_at + index / rate)
              for title, index in probes.items() if int(title.split()[1]) in watch.probes]
    return LoadResult(events, keys, len(probes), len(events), first)


async def measure(load_threads: int, rate: float, seconds: float, tree_threads: int,
                  repeats: int) -> Report:
    events = int(rate * seconds)
    spec = WorldSpec(threads=load_threads, events=events, item_ms=1000 / rate, probe_every=25)
    load = ChildServer("benchmarks.replay_server", "--threads", str(load_threads),
                       "--events", str(events), "--item-ms", str(1000 / rate),
                       "--probe-every", "25", "--rate", str(rate), "--wait-go")
    tree = ChildServer("benchmarks.replay_server", "--threads", str(tree_threads),
                       "--events", "1")
    snapshot = dumps(build_world(WorldSpec(threads=tree_threads, events=0)).shell_snapshot)
    frame = f'{{"_tag":"Chunk","requestId":"2","values":[{snapshot}]}}'
    watch = PaintWatch()
    restore = watch.install()
    timed = Timed({"full refresh_view": (Renderer, "refresh_view"),
                   "view(now)": (Supervisor, "view"), "tree.sync": (ThreadTree, "sync"),
                   "patch (changed rows)": (Renderer, "patch"),
                   "changed_rows(now)": (Supervisor, "changed_rows"),
                   "row(id, now)": (Supervisor, "row")})
    await asyncio.gather(load.start(), tree.start())
    runs: list[LoadResult] = []
    trees: list[tuple[float, float]] = []
    decodes: list[tuple[float, float, float]] = []
    try:
        for _ in range(repeats):
            quiet_gc()
            watch.probes.clear()
            watch.paints.clear()
            untime = timed.install()
            try:
                with as_the_cli():
                    runs.append(await under_load(load, spec, rate, watch, press_every=0.1))
            finally:
                untime()
            quiet_gc()
            watch.paints.clear()
            with as_the_cli():
                trees.append(await first_tree(tree, tree_threads, watch))
            quiet_gc()
            with as_the_cli():
                decodes.append(decode_times(frame))
    finally:
        restore()
        await asyncio.gather(load.stop(), tree.stop())
    ev = [x * 1000 for r in runs for x in r.events]
    keys = [x * 1000 for r in runs for x in r.keys]
    report = Report(
        "tui", f"the app under load, headless ({load_threads:,} threads at {rate:g} items/s "
        f"for {seconds:g}s; first tree at {tree_threads:,} threads; {repeats} runs)",
        ["figure", "median", "p95", "against", "ratio", "n"])
    report.add(figure="event -> row on screen (ms)", median=median(ev), p95=percentile(ev, 95),
               against="-", ratio=float("nan"),
               n=f"{sum(r.seen for r in runs)}/{sum(r.probes for r in runs)} probes")
    report.add(figure="key -> screen (ms)", median=median(keys), p95=percentile(keys, 95),
               against="-", ratio=float("nan"), n=len(keys))
    loads = median([d[0] for d in decodes])
    full = median([d[1] for d in decodes])
    first = median([t[0] for t in trees])
    report.add(figure=f"first full tree @{tree_threads:,} (s)", median=first,
               p95=max(t[0] for t in trees), against=f"json.loads {loads:.3f}s",
               ratio=ratio(first, loads), n=len(trees))
    report.add(figure="  vs json.loads + protocol decode (s)", median=full, p95=float("nan"),
               against="-", ratio=ratio(first, full), n=len(decodes))
    cpu = median([t[1] for t in trees])
    decode_cpu = median([d[2] for d in decodes])
    report.add(figure="  the app's CPU to that paint (s)", median=cpu, p95=float("nan"),
               against=f"decode CPU {decode_cpu:.3f}s", ratio=ratio(cpu, decode_cpu),
               n=len(trees))
    report.add(figure=f"first full tree @{load_threads:,} (s)",
               median=median([r.first_tree_s for r in runs]), p95=float("nan"), against="-",
               ratio=float("nan"), n=len(runs))
    for name, calls in timed.calls.items():
        if not calls:
            continue
        ms = [c * 1000 for c in calls]
        report.add(figure=f"  one {name} under load (ms)", median=median(ms),
                   p95=percentile(ms, 95), against="-", ratio=float("nan"), n=len(ms))
    report.notes += [
        "event -> screen is measured from when the server was due to send the probe, so time "
        "the item waited behind a slow consumer's acks counts; probes overwritten by the next "
        "probe of the same row before a paint are not seen (n)",
        "key -> screen: `down`/`up` while the load runs, each 100 ms after the last was painted",
        "first full tree ratio = first tree time / snapshot json.loads time; its CPU row: the "
        "app process's CPU from its start to that paint / the CPU of json.loads + decode",
        "each app and each decode runs under the CLI's collector policy "
        "(t3tui.client.collector), taken afresh per app as a new process would",
    ]
    return report


def run(tiny: bool = False, repeats: int | None = None) -> list[Report]:
    if tiny:
        return [asyncio.run(measure(200, rate=100, seconds=1.5, tree_threads=300,
                                    repeats=repeats or 1))]
    return [asyncio.run(measure(5_000, rate=500, seconds=10, tree_threads=10_000,
                                repeats=repeats or 2))]


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(argv, "Benchmark 3: the Textual app under load",
                   lambda a: run(a.tiny, a.repeats))


if __name__ == "__main__":
    sys.exit(main())
