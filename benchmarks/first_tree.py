"""Benchmark 3b: the first full tree as a user gets it, each in a process of its own.

`benchmarks.tui_load` times its first trees in the process that has just run the app under
load: the heap the previous app left (its arenas, the objects its collector freeze let go)
is one a user's first tree never meets, since `t3tui` starts a fresh process. Here every first
tree runs in a new Python process (`--child tree`), and so does every decode it is compared
with (`--child decode`: `json.loads`, then `json.loads` + the protocol models, of the same
snapshot frame), the two alternating; each process takes the collector policy the CLI takes
(`t3tui.client.collector`). The server is one child process for all of them.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from typing import Any

from benchmarks.common import Report, as_the_cli, median, ratio, run_cli
from benchmarks.procs import ChildServer
from benchmarks.tui_load import PaintWatch, decode_times, first_tree
from benchmarks.world import WorldSpec, build_world, dumps

RUN_TIMEOUT = 240.0


class _Url:
    """What `first_tree` needs of the server in a child: its URL; the run's result line is
    read by the parent, which owns the server, and says so on our stdin. The app stays
    until then, as `tui_load`'s does: leaving at the paint raced the burst's Ack (and the
    thread streams' subscriptions), and the server reported the consumer gone."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def result(self, timeout: float) -> dict[str, Any]:
        line = await asyncio.wait_for(asyncio.to_thread(sys.stdin.readline), timeout)
        if line.strip() != "over":
            raise RuntimeError(f"the parent did not say the run was over: {line!r}")
        return {}


async def _tree_child(url: str, threads: int) -> dict[str, float]:
    watch = PaintWatch()
    restore = watch.install()
    try:
        with as_the_cli():
            wall, cpu = await first_tree(_Url(url), threads, watch)  # type: ignore[arg-type]
    finally:
        restore()
    return {"tree_s": wall, "tree_cpu_s": cpu}


def _decode_child(threads: int) -> dict[str, float]:
    snapshot = dumps(build_world(WorldSpec(threads=threads, events=0)).shell_snapshot)
    frame = f'{{"_tag":"Chunk","requestId":"2","values":[{snapshot}]}}'
    with as_the_cli():
        loads, full, cpu = decode_times(frame)
    return {"loads_s": loads, "decode_s": full, "decode_cpu_s": cpu}


async def _child(*args: str, server: ChildServer | None = None) -> dict[str, float]:
    """Run one child; with `server`, tell it when the server has reported its run over."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "benchmarks.first_tree", *args, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    told = b""
    if server is not None:
        result = asyncio.ensure_future(server.result(RUN_TIMEOUT))
        exited = asyncio.ensure_future(proc.wait())
        await asyncio.wait({result, exited}, return_when=asyncio.FIRST_COMPLETED)
        if result.done():
            result.result()  # raises the server's error, if it reported one
            told = b"over\n"
        else:  # the child failed before the run was over: its stderr says why
            result.cancel()
    out, err = await asyncio.wait_for(proc.communicate(told), RUN_TIMEOUT)
    if proc.returncode != 0:
        raise RuntimeError(f"first-tree child {args[:2]} failed: {err.decode()[-2000:]}")
    return json.loads(out.decode().strip().splitlines()[-1])


async def measure(threads: int, repeats: int) -> Report:
    server = ChildServer("benchmarks.replay_server", "--threads", str(threads), "--events", "1")
    await server.start()
    trees: list[dict[str, float]] = []
    decodes: list[dict[str, float]] = []
    try:
        for rep in range(repeats):
            for which in ("tree", "decode") if rep % 2 == 0 else ("decode", "tree"):
                if which == "tree":
                    trees.append(await _child("--child", "tree", server.url, str(threads),
                                              server=server))
                else:
                    decodes.append(await _child("--child", "decode", "-", str(threads)))
    finally:
        await server.stop()
    report = Report(
        "first_tree", f"the first full tree at {threads:,} threads, each app and each decode "
        f"in a fresh process ({repeats} of each, alternating)",
        ["figure", "median", "min", "max", "ratio"])
    tree, cpu = [t["tree_s"] for t in trees], [t["tree_cpu_s"] for t in trees]
    loads, full = [d["loads_s"] for d in decodes], [d["decode_s"] for d in decodes]
    dcpu = [d["decode_cpu_s"] for d in decodes]
    report.add(figure="first full tree (s)", median=median(tree), min=min(tree), max=max(tree),
               ratio=float("nan"))
    report.add(figure="  vs json.loads (s)", median=median(loads), min=min(loads),
               max=max(loads), ratio=ratio(median(tree), median(loads)))
    report.add(figure="  vs json.loads + protocol decode (s)", median=median(full),
               min=min(full), max=max(full), ratio=ratio(median(tree), median(full)))
    report.add(figure="the app's CPU to that paint (s)", median=median(cpu), min=min(cpu),
               max=max(cpu), ratio=float("nan"))
    report.add(figure="  vs the decode's CPU (s)", median=median(dcpu), min=min(dcpu),
               max=max(dcpu), ratio=ratio(median(cpu), median(dcpu)))
    report.notes += [
        "first full tree: from creating the app to the first paint of a tree holding every "
        "thread (as benchmarks.tui_load's first tree), in a process that ran nothing before",
        "ratio = the first tree's median / the decode's median (issue 25's target: <= 3x "
        "json.loads + decode)",
    ]
    return report


def run(tiny: bool = False, repeats: int | None = None) -> list[Report]:
    if tiny:
        return [asyncio.run(measure(500, repeats or 1))]
    return [asyncio.run(measure(10_000, repeats or 5))]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--child"]:
        which, url, threads = args[1], args[2], int(args[3])
        result = asyncio.run(_tree_child(url, threads)) if which == "tree" \
            else _decode_child(threads)
        print(json.dumps(result), flush=True)
        return 0
    return run_cli(args, "Benchmark 3b: the first full tree, each in a fresh process",
                   lambda a: run(a.tiny, a.repeats))


if __name__ == "__main__":
    sys.exit(main())
