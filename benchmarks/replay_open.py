"""Benchmark: opening a recording (`t3tui --replay FILE`) vs `json.loads` of its frames.

A recording of a 10,000-thread world with 100,000 live events (`benchmarks/world.py`) is
written by the real `Recorder`, as the client would record it: the shell snapshot, the family
thread snapshots, then one Chunk per event. Measured side by side, interleaved, medians:

- floor: `json.loads` of every frame of the file (the frames already in memory: no disk, no
  decompression);
- open: `read_recording` (read, decompress, split, time every line) + the replay source's
  `open()` (apply lines up to the first complete tree) + the first `Supervisor.view` (every
  row of the tree, what the tree widget draws).

`python -m benchmarks.replay_open [--tiny] [--repeats N]`.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.common import Report, median, quiet_gc, ratio, run_cli
from benchmarks.world import WorldSpec, build_world, dumps
from t3tui.client.recorder import Recorder
from t3tui.client.recording import read_recording
from t3tui.tui.sources.replay import ReplaySource

SERVER = {"environmentId": "env-bench", "label": "bench", "serverVersion": "bench",
          "orchestrationProtocolVersion": 2}


class Ticks:
    """A fake clock for the recorder: each frame 1 ms after the previous one."""

    def __init__(self) -> None:
        self.now = 1_790_000_000.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def request(rid: str, tag: str, payload: dict[str, Any]) -> str:
    return dumps({"_tag": "Request", "id": rid, "tag": tag, "payload": payload, "headers": []})


def chunk(rid: str, *values: dict[str, Any]) -> str:
    return dumps({"_tag": "Chunk", "requestId": rid, "values": list(values)})


def write_recording(path: Path, threads: int, events: int) -> list[str]:
    """Record the world to `path`; returns every frame received, as text."""
    world = build_world(WorldSpec(threads=threads, events=events))
    recorder = Recorder(path, url="http://127.0.0.1:3773", clock=Ticks())
    received: list[str] = []

    def give(text: str) -> None:
        received.append(text)
        recorder.received(text)

    recorder.connected(SERVER)
    recorder.sent(None, request("1", "orchestration.subscribeShell",
                                {"requestCompletionMarker": True}))
    give(chunk("1", world.shell_snapshot))
    give(chunk("1", {"kind": "synchronized"}))
    ids = {None: "1"}
    for n, tid in enumerate(world.subscribed, start=2):
        ids[tid] = str(n)
        recorder.sent(None, request(str(n), "orchestration.subscribeThread",
                                    {"threadId": tid, "requestCompletionMarker": True}))
        give(chunk(str(n), world.thread_snapshots[tid]))
        give(chunk(str(n), {"kind": "synchronized"}))
    for stream, item in world.burst:
        give(chunk(ids[stream], item))
    recorder.close()
    return received


def floor(frames: list[str]) -> float:
    quiet_gc()
    began = time.perf_counter()
    for text in frames:
        json.loads(text)
    return time.perf_counter() - began


def open_replay(path: Path) -> tuple[float, int]:
    quiet_gc()
    began = time.perf_counter()
    source = ReplaySource(read_recording(path))
    source.open()
    rows = len(source.supervisor.view(source.clock()).rows)
    return time.perf_counter() - began, rows


def run(tiny: bool = False, repeats: int | None = None) -> list[Report]:
    threads, events = (200, 2_000) if tiny else (10_000, 100_000)
    rounds = repeats or (1 if tiny else 3)
    report = Report("replay", f"open a recording of {threads:,} threads and {events:,} events "
                    "vs json.loads of its frames",
                    ["figure", "seconds", "ratio"])
    with tempfile.TemporaryDirectory(prefix="t3tui-bench-") as folder:
        path = Path(folder) / "world.ndjson.gz"
        frames = write_recording(path, threads, events)
        loads, opens, shown = [], [], 0
        for _ in range(rounds):  # interleaved, so load changes hit both alike
            loads.append(floor(frames))
            seconds, shown = open_replay(path)
            opens.append(seconds)
        size = path.stat().st_size / 1e6
        text = sum(map(len, frames)) / 1e6
    floor_s, open_s = median(loads), median(opens)
    report.add(figure="json.loads of every frame", seconds=floor_s, ratio=1.0)
    report.add(figure="open: read + first tree", seconds=open_s, ratio=ratio(open_s, floor_s))
    report.notes.append(f"{len(frames):,} frames, {text:.0f} MB of JSON, {size:.1f} MB "
                        f"recorded; first tree: {shown:,} rows; median of {rounds}")
    return [report]


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(argv, __doc__.splitlines()[0], lambda a: run(a.tiny, a.repeats))


if __name__ == "__main__":
    sys.exit(main())
