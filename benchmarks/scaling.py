"""Benchmark 2: does per-event cost depend on the number of threads? And memory per thread.

Two `Supervisor`s, one holding a shell of 100 threads and one of 10,000 (the same 80 family
threads subscribed in both), are fed the same burst of live items, slice by slice, alternating
between them. Per item: the reducer (`apply_shell` / `apply_thread`), the detectors (the rows of
the threads it dirtied: `take_dirty` + `row`, which runs every detector), and the interest
query the client makes after every batch (`threads_of_interest`). A ratio near 1.0 means O(1)
in the number of threads. `view(now)` (the whole tree, O(n) by design) is shown for scale.

Memory: a child process loads the snapshot (read from a file, so nothing of its making is
left over), and reports RSS with N threads in the model (plus one view, as a screen keeps)
minus RSS with an empty model.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.common import Report, median, quiet_gc, ratio, run_cli
from benchmarks.procs import ROOT
from benchmarks.world import World, WorldSpec, build_world, dumps
from t3tui.model import Supervisor


def loaded(world: World) -> Supervisor:
    """A supervisor synchronized on the world's snapshots, with its first view taken."""
    sup = Supervisor()
    sup.apply_shell(world.shell_snapshot)
    sup.apply_shell({"kind": "synchronized"})
    for tid, item in world.thread_snapshots.items():
        sup.apply_thread(tid, item)
        sup.apply_thread(tid, {"kind": "synchronized"})
    sup.take_dirty()
    sup.view(world.end)
    return sup


def time_slice(sup: Supervisor, items: Sequence[tuple[str | None, dict[str, Any]]],
               world: World) -> dict[str, float]:
    """Seconds per item spent in the reducer, the detectors and the interest query."""
    reduce_s = detect_s = interest_s = 0.0
    now = world.end
    clock = time.perf_counter
    for stream, item in items:
        t0 = clock()
        if stream is None:
            sup.apply_shell(item)
        else:
            sup.apply_thread(stream, item)
        t1 = clock()
        for tid in sup.take_dirty():
            sup.row(tid, now)
        t2 = clock()
        sup.threads_of_interest()
        t3 = clock()
        reduce_s += t1 - t0
        detect_s += t2 - t1
        interest_s += t3 - t2
    n = len(items)
    return {"reduce": reduce_s / n, "detect": detect_s / n, "interest": interest_s / n}


def count_calls(sup: Supervisor, items: Sequence[tuple[str | None, dict[str, Any]]],
                world: World) -> dict[str, float]:
    """Python function calls per item (a clock-free measure of work): the reducer alone,
    reducer + detectors, and the interest query."""
    count = 0

    def profile(_frame: Any, event: str, _arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    totals = {"reduce": 0, "reduce+detect": 0, "interest": 0}
    for stream, item in items:
        count = 0
        sys.setprofile(profile)
        if stream is None:
            sup.apply_shell(item)
        else:
            sup.apply_thread(stream, item)
        sys.setprofile(None)
        totals["reduce"] += count
        sys.setprofile(profile)
        for tid in sup.take_dirty():
            sup.row(tid, world.end)
        sys.setprofile(None)
        totals["reduce+detect"] += count
        count = 0
        sys.setprofile(profile)
        sup.threads_of_interest()
        sys.setprofile(None)
        totals["interest"] += count
    return {k: v / len(items) for k, v in totals.items()}


FRAME_ITEMS = 100  # burst items between two frames at the app's cadence (see `frame_slice`)


def frame_slice(sup: Supervisor, items: Sequence[tuple[str | None, dict[str, Any]]],
                world: World) -> dict[str, float]:
    """CPU seconds per item at the app's cadence: items applied, and after every FRAME_ITEMS
    of them a frame (`threads_of_interest` + `changed_rows`), as the client and the screen
    ask. CPU time, and frames counted in items rather than in time, so that neither a loaded
    machine nor the client's own speed moves how much work a frame finds (in `ingest` a
    slower run spans more frames, and its CPU per item grows with them)."""
    apply_s = frame_s = 0.0
    clock = time.process_time
    for start in range(0, len(items), FRAME_ITEMS):
        t0 = clock()
        for stream, item in items[start:start + FRAME_ITEMS]:
            if stream is None:
                sup.apply_shell(item)
            else:
                sup.apply_thread(stream, item)
        t1 = clock()
        sup.threads_of_interest()
        sup.changed_rows(world.end)
        frame_s += clock() - t1
        apply_s += t1 - t0
    n = len(items)
    return {"reduce@frames": apply_s / n, "frame@frames": frame_s / n}


def per_event(sizes: Sequence[int], events: int, repeats: int) -> list[Report]:
    worlds = {n: build_world(WorldSpec(threads=n, events=events * (repeats + 1)))
              for n in sizes}
    sups = {n: loaded(w) for n, w in worlds.items()}
    framed = {n: loaded(w) for n, w in worlds.items()}  # the same items, at frame cadence
    samples: dict[int, list[dict[str, float]]] = {n: [] for n in sizes}
    views: dict[int, list[float]] = {n: [] for n in sizes}
    for rep in range(repeats):
        order = sizes if rep % 2 == 0 else list(reversed(sizes))
        for n in order:
            quiet_gc()
            items = worlds[n].burst[rep * events:(rep + 1) * events]
            samples[n].append(time_slice(sups[n], items, worlds[n]))
            t0 = time.perf_counter()
            sups[n].view(worlds[n].end)
            views[n].append(time.perf_counter() - t0)
            quiet_gc()
            samples[n][-1].update(frame_slice(framed[n], items, worlds[n]))
    small, big = min(sizes), max(sizes)
    report = Report(
        "scaling", f"per-item cost at {small:,} vs {big:,} threads ({events} items x "
        f"{repeats} interleaved slices, medians)",
        ["part", f"us/item @{small:,}", f"us/item @{big:,}", "ratio"])
    for part in ("reduce", "detect", "interest", "reduce@frames", "frame@frames"):
        a = median([s[part] for s in samples[small]]) * 1e6
        b = median([s[part] for s in samples[big]]) * 1e6
        report.add(**{"part": part, f"us/item @{small:,}": a, f"us/item @{big:,}": b,
                      "ratio": ratio(b, a)})
    a, b = median(views[small]) * 1e6, median(views[big]) * 1e6
    report.add(**{"part": "view(now) (O(n))", f"us/item @{small:,}": a,
                  f"us/item @{big:,}": b, "ratio": ratio(b, a)})
    report.notes += [
        "reduce: apply one item; detect: take_dirty + row() of each dirtied thread (all "
        "detectors); interest: threads_of_interest(), which the client asks after every batch",
        "ratio = cost at the big size / cost at the small size: 1.0 is O(1) in threads",
        "view(now) is one full tree, per call, not per item (shown for scale)",
        f"@frames: the same items on a second supervisor at the app's cadence, CPU time: "
        f"reduce = applying them; frame = threads_of_interest + changed_rows after every "
        f"{FRAME_ITEMS} items (what the facts' patches and rows cost once per frame), per item",
    ]
    calls = Report("scaling-calls", f"Python calls per item at {small:,} vs {big:,} threads "
                   f"(deterministic: the same {events} items at both sizes)",
                   ["part", f"calls @{small:,}", f"calls @{big:,}", "ratio"])
    counted = {n: count_calls(sups[n], worlds[n].burst[repeats * events:], worlds[n])
               for n in (small, big)}
    for part in ("reduce", "reduce+detect", "interest"):
        a, b = counted[small][part], counted[big][part]
        calls.add(**{"part": part, f"calls @{small:,}": a, f"calls @{big:,}": b,
                     "ratio": ratio(b, a)})
    calls.notes.append("counted with sys.setprofile: immune to machine load; equal counts "
                       "mean the work per item does not grow with the thread count")
    return [report, calls]


def probe_rss(path: Path) -> dict[str, float]:
    """Run the memory probe in a fresh interpreter; its JSON line."""
    out = subprocess.run([sys.executable, "-m", "benchmarks.memory_probe", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def memory(threads: int, repeats: int) -> Report:
    world = build_world(WorldSpec(threads=threads, events=0))
    wire_bytes = len(dumps(world.shell_snapshot))
    with tempfile.TemporaryDirectory(prefix="t3tui-bench-") as temp:
        path = Path(temp) / "shell.json"
        path.write_text(dumps({"shell": world.shell_snapshot, "now": world.end.isoformat(),
                               "threads": world.thread_snapshots}))
        del world
        runs = [probe_rss(path) for _ in range(repeats)]
    report = Report("memory", f"RSS per thread, {threads:,} threads minus empty (child "
                    f"process, median of {repeats})",
                    ["threads", "model MiB", "model+view MiB", "KiB/thread", "wire KiB/thread",
                     "watched", "KiB/watched thread"])
    model = median([r["model"] for r in runs])
    both = median([r["model_view"] for r in runs])
    report.add(**{"threads": threads, "model MiB": model / 2**20, "model+view MiB": both / 2**20,
                  "KiB/thread": both / threads / 1024,
                  "wire KiB/thread": wire_bytes / threads / 1024,
                  "watched": runs[0]["watched"],
                  "KiB/watched thread": median([r["watched_bytes"] for r in runs])
                  / max(1, runs[0]["watched"]) / 1024})
    report.notes.append("KiB/thread counts the model plus one retained view (what a screen "
                        "holds); the wire column is the snapshot's JSON size, for scale")
    report.notes.append("KiB/watched thread: what holding a thread's stream adds (its snapshot "
                        "applied and its row re-derived; tracemalloc, retained), over the "
                        "shell-only model; the cap (DetectorConfig.watch_cap, 1,000) bounds it")
    return report


def run(tiny: bool = False, repeats: int | None = None) -> list[Report]:
    if tiny:
        return [*per_event([100, 300], events=60, repeats=repeats or 2), memory(300, 1)]
    return [*per_event([100, 10_000], events=600, repeats=repeats or 5),
            memory(10_000, repeats or 3)]


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(argv, "Benchmark 2: per-item cost vs thread count, memory per thread",
                   lambda a: run(a.tiny, a.repeats))


if __name__ == "__main__":
    sys.exit(main())
