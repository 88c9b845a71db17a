"""Benchmark 1: ingest vs the floor.

The same recorded V2 stream (a shell snapshot of N threads, the family projections, then a
burst of live items) is replayed over a real websocket on 127.0.0.1 by
`benchmarks.replay_server` (a child process), and consumed (a) by a bare loop of websockets
receive + `json.loads` + Ack, the floor, (b) by the t3tui `Session` + `Supervisor`, building
the rows of every dirtied thread after each batch (the detectors run there). The server times
the burst, from its first frame to the last Ack, so both are measured by the same clock the
same way. Variants are interleaved and repeated; medians are reported.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence

from benchmarks.common import Report, as_the_cli, median, quiet_gc, ratio, run_cli
from benchmarks.consumers import ClientRun, FloorCount, FrameClientRun, cancel, floor
from benchmarks.procs import ChildServer
from benchmarks.world import World, WorldSpec, build_world

RUN_TIMEOUT = 120.0


async def one_floor(server: ChildServer, world: World,
                    acks_together: bool = False) -> dict[str, float]:
    count = FloorCount(sync_frames=2 * (1 + len(world.subscribed)))
    task = asyncio.create_task(floor(server.ws_url, world.subscribed, count, acks_together))
    try:
        result = await server.result(RUN_TIMEOUT)
        result["cpu_s"] = burst_cpu(count.synced_cpu)
    finally:
        await cancel(task)
    expected = len(world.burst) + 2 * (1 + len(world.subscribed))
    if count.items != expected:
        raise RuntimeError(f"floor received {count.items} items, expected {expected}")
    return result


def burst_cpu(synced_cpu: float | None) -> float:
    """This process's CPU seconds from every stream synchronized to the burst's last Ack."""
    if synced_cpu is None:
        raise RuntimeError("the consumer never saw every stream synchronized")
    return time.process_time() - synced_cpu


async def one_client(server: ChildServer, world: World,
                     consumer: type[ClientRun] = ClientRun) -> dict[str, float]:
    client = consumer(server.url, now=world.end)
    task = asyncio.create_task(client.run())
    try:
        result = await server.result(RUN_TIMEOUT)
        result["cpu_s"] = burst_cpu(client.synced_cpu)
    finally:
        await client.stop()
        await cancel(task)
    sup = client.supervisor
    got = {None: sup.cursor_shell} | {t: sup.cursor_thread(t) for t in world.subscribed}
    last = world.last_sequence
    wrong = {k: v for k, v in got.items() if k in last and v != last[k]}
    if wrong:
        raise RuntimeError(f"the client missed items: cursors {wrong}")
    if isinstance(client, FrameClientRun):
        client.frame()  # the frame after the last batch: every row is derived once more
    result["rows_per_item"] = client.rows_built / len(world.burst)
    return result


async def one_framed(server: ChildServer, world: World) -> dict[str, float]:
    return await one_client(server, world, FrameClientRun)


async def one_floor_acks_together(server: ChildServer, world: World) -> dict[str, float]:
    return await one_floor(server, world, acks_together=True)


VARIANTS = {"floor": one_floor, "floor+": one_floor_acks_together, "t3tui": one_client,
            "t3tui@frames": one_framed}


def cpu_columns(f: list[dict[str, float]], fr: list[dict[str, float]],
                items: int) -> dict[str, float]:
    f_cpu = median([r["cpu_s"] for r in f]) / items * 1e6
    fr_cpu = median([r["cpu_s"] for r in fr]) / items * 1e6
    return {"floor CPU us/item": f_cpu, "@frames CPU us/item": fr_cpu,
            "CPU floor/@frames": ratio(f_cpu, fr_cpu)}


def label(size: tuple[int, int]) -> int | str:
    n, active = size
    return f"{n}+{active} busy" if active else n


async def measure(sizes: Sequence[tuple[int, int]], events: int, repeats: int) -> Report:
    """`sizes`: (threads, busy top-level threads) pairs."""
    report = Report(
        "ingest", f"t3tui client + reducer + detectors vs the floor ({events} burst items, "
        f"median of {repeats} interleaved runs)",
        ["threads", "floor items/s", "t3tui items/s", "t3tui/floor", "floor sync s",
         "t3tui sync s", "sync ratio", "rows/item", "@frames items/s", "@frames/floor",
         "@frames rows/item", "floor CPU us/item", "@frames CPU us/item", "CPU floor/@frames",
         "floor+ items/s", "@frames/floor+", "floor+ CPU us/item", "CPU floor+/@frames"])
    worlds = {size: build_world(WorldSpec(threads=size[0], events=events, active=size[1]))
              for size in sizes}
    servers = {size: ChildServer("benchmarks.replay_server", "--threads", str(size[0]),
                                 "--events", str(events), "--active", str(size[1]))
               for size in sizes}
    await asyncio.gather(*(s.start() for s in servers.values()))
    samples: dict[tuple[int, str], list[dict[str, float]]] = {}
    try:
        for rep in range(repeats):
            for n in sizes:
                # Alternate which variant goes first, so a drift in machine load is shared.
                order = list(VARIANTS) if rep % 2 == 0 else list(reversed(VARIANTS))
                for name in order:
                    quiet_gc()
                    with as_the_cli():  # each client as `t3tui` runs it; the floors too
                        result = await VARIANTS[name](servers[n], worlds[n])
                    samples.setdefault((n, name), []).append(result)
    finally:
        await asyncio.gather(*(s.stop() for s in servers.values()))
    for n in sizes:
        f, c, fr = samples[(n, "floor")], samples[(n, "t3tui")], samples[(n, "t3tui@frames")]
        fa = samples[(n, "floor+")]
        fr_rate = median([r["items"] / r["burst_s"] for r in fr])
        fa_rate = median([r["items"] / r["burst_s"] for r in fa])
        fa_cpu = median([r["cpu_s"] for r in fa]) / len(worlds[n].burst) * 1e6
        fr_cpu = median([r["cpu_s"] for r in fr]) / len(worlds[n].burst) * 1e6
        f_rate = median([r["items"] / r["burst_s"] for r in f])
        c_rate = median([r["items"] / r["burst_s"] for r in c])
        f_sync, c_sync = median([r["sync_s"] for r in f]), median([r["sync_s"] for r in c])
        report.add(**{"threads": label(n), "floor items/s": f_rate, "t3tui items/s": c_rate,
                      "t3tui/floor": ratio(c_rate, f_rate), "floor sync s": f_sync,
                      "t3tui sync s": c_sync, "sync ratio": ratio(c_sync, f_sync),
                      "rows/item": median([r["rows_per_item"] for r in c]),
                      "@frames items/s": fr_rate, "@frames/floor": ratio(fr_rate, f_rate),
                      "@frames rows/item": median([r["rows_per_item"] for r in fr]),
                      **cpu_columns(f, fr, len(worlds[n].burst)),
                      "floor+ items/s": fa_rate, "@frames/floor+": ratio(fr_rate, fa_rate),
                      "floor+ CPU us/item": fa_cpu, "CPU floor+/@frames": ratio(fa_cpu, fr_cpu)})
    fam = WorldSpec(threads=max(n for n, _ in sizes)).family_size
    report.notes += [
        f"{fam} family threads (parents and children) are subscribed at every size; the rest "
        "are settled or idle top-level threads in the shell only, except N busy: top-level "
        "threads with a running run, which t3tui watches for their activity (the floor "
        "subscribes them too)",
        "items/s: burst items per second, first frame sent to last Ack received (server clock)",
        "sync s: socket open to every stream synchronized (snapshots decoded and applied)",
        "sync ratio = t3tui / floor time; t3tui/floor = throughput ratio (1.0 = at the floor)",
        "t3tui derives the rows of the threads each batch dirtied, after every batch (issue "
        "11's definition); @frames is the same client at the app's cadence: batches only mark "
        "rows, and at most 60 times a second a frame asks changed_rows(now) (plus one frame "
        "after the last batch, not timed; the frame that shows the synchronized tree is taken "
        "before the burst's window); rows/item: rows handed out per burst item",
        "floor+: the floor with the Acks of the Chunks read together written in one socket "
        "write, as the t3tui client writes them since the fourth round (the floor writes each "
        "Ack with its own websockets send); @frames/floor+ is the ratio against the least a "
        "client must do once that is known",
        "every variant runs under the collector policy the t3tui CLI takes at its start "
        "(t3tui.client.collector: a larger first generation, the heap frozen once every stream "
        "is first synchronized), taken afresh per run as a new process would (since the "
        "fourth round; before, the interpreter's defaults)",
        "CPU us/item: this process's CPU time from every stream synchronized to the last Ack, "
        "per burst item (the servers run in another process): unlike items/s, a loaded "
        "machine barely moves it; CPU floor/@frames is the throughput ratio a client that is "
        "the bottleneck on a core of its own would reach",
    ]
    return report


def run(tiny: bool = False, repeats: int | None = None) -> list[Report]:
    if tiny:
        return [asyncio.run(measure([(60, 0), (200, 0), (200, 20)], events=120,
                                    repeats=repeats or 1))]
    return [asyncio.run(measure([(100, 0), (1_000, 0), (10_000, 0), (10_000, 300)],
                                events=3000, repeats=repeats or 5))]


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(argv, "Benchmark 1: ingest vs the floor",
                   lambda a: run(a.tiny, a.repeats))


if __name__ == "__main__":
    sys.exit(main())
