"""Benchmark: the cost of reading provider records (Codex rollouts) the way a live view does.

A live view looks at every shown thread's rollout once a second. The first look reads the
whole file once; every later look reads only what was appended (kept offsets). Compared side by
side with re-reading the whole file each tick (what t3tui never does), on one synthetic rollout
of realistic lines (`python -m benchmarks.proof_read [--tiny]`).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.common import Report, quiet_gc, ratio, run_cli
from t3tui.model.provider_record import NativeRef
from t3tui.proof.homes import ProofHomes
from t3tui.proof.records import RecordReader

TID = "019a0b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b"


def _line(kind: str, payload: dict, i: int) -> str:
    return json.dumps({"timestamp": f"2026-10-04T12:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
                       "type": kind, "payload": payload}) + "\n"


def write_rollout(home: Path, megabytes: float) -> Path:
    path = home / "sessions" / "2025" / "10" / "20" / f"rollout-2025-10-20T10-00-00-{TID}.jsonl"
    path.parent.mkdir(parents=True)
    filler = "x" * 900  # tool output and reasoning make rollout lines long
    target = int(megabytes * 1_000_000)
    with path.open("w") as fh:
        fh.write(_line("session_meta", {"id": TID, "cwd": "/w"}, 0))
        i, size, turn = 1, 0, 0
        while size < target:
            if i % 50 == 1:
                turn += 1
                text = _line("event_msg", {"type": "task_started", "turn_id": f"t{turn}"}, i)
            elif i % 50 == 0:
                text = _line("event_msg", {"type": "task_complete", "turn_id": f"t{turn}",
                                           "last_agent_message": "done"}, i)
            else:
                text = _line("response_item", {"type": "function_call_output",
                                               "output": filler}, i)
            fh.write(text)
            size += len(text)
            i += 1
    return path


def run(tiny: bool = False, repeats: int | None = None) -> list[Report]:
    megabytes = 2.0 if tiny else 100.0
    ticks = repeats or (5 if tiny else 20)
    report = Report("proof", f"provider records: one {megabytes:g} MB rollout, looked at once a "
                    "second", ["look", "ms", "MB read", "vs re-read"])
    with tempfile.TemporaryDirectory(prefix="t3tui-bench-") as folder:
        home = Path(folder)
        path = write_rollout(home, megabytes)
        size_mb = path.stat().st_size / 1e6
        want = {"thread": NativeRef("codex", TID)}
        reader = RecordReader(ProofHomes(home, None))
        quiet_gc()
        began = time.perf_counter()
        record = reader.refresh(want)["thread"]
        first = time.perf_counter() - began
        assert record.state == "found" and record.turns, record
        idle, grown, full = [], [], []
        for i in range(ticks):
            quiet_gc()
            began = time.perf_counter()
            reader.refresh(want)
            idle.append(time.perf_counter() - began)
            with path.open("a") as fh:
                fh.write(_line("event_msg", {"type": "agent_message", "message": "tick"}, i))
            began = time.perf_counter()
            reader.refresh(want)
            grown.append(time.perf_counter() - began)
        for _ in range(max(1, ticks // 10)):
            quiet_gc()
            naive = RecordReader(ProofHomes(home, None))
            began = time.perf_counter()
            naive.refresh(want)
            full.append(time.perf_counter() - began)
        reread = statistics.median(full)
        report.add(**{"look": "first look (whole file)", "ms": first * 1000,
                      "MB read": size_mb, "vs re-read": ratio(first, reread)})
        report.add(**{"look": "nothing appended", "ms": statistics.median(idle) * 1000,
                      "MB read": 0.0, "vs re-read": ratio(statistics.median(idle), reread)})
        report.add(**{"look": "one line appended", "ms": statistics.median(grown) * 1000,
                      "MB read": 0.0001, "vs re-read": ratio(statistics.median(grown), reread)})
        report.add(**{"look": "re-read whole file (never done)", "ms": reread * 1000,
                      "MB read": size_mb, "vs re-read": 1.0})
        report.notes.append(f"{ticks} ticks; medians; {record.lines} lines, "
                            f"{len(record.turns)} turns")
    return [report]


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(argv, "Benchmark: reading provider records", lambda a: run(a.tiny, a.repeats))


if __name__ == "__main__":
    sys.exit(main())
