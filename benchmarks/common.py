"""Shared helpers: statistics, the printed report, the command line and the machine."""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import statistics
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from t3tui.client import collector


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else math.nan


@contextmanager
def as_the_cli() -> Iterator[None]:
    """The process policy `t3tui` takes at its start (`t3tui.client.collector`), fresh for
    each client or app measured: a new process freezes its own first tree, not the previous
    one's."""
    collector.configure()
    try:
        yield
    finally:
        collector.reset()


def quiet_gc() -> None:
    """Collect now, so one run's garbage is not collected during the next one's timing."""
    gc.collect()


@dataclass
class Report:
    """One benchmark's printed table: `rows` are dicts keyed by `columns`."""

    name: str
    title: str
    columns: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, **values: Any) -> None:
        missing = [c for c in self.columns if c not in values]
        if missing:
            raise ValueError(f"{self.name}: row lacks {missing}")
        self.rows.append(values)

    def render(self) -> str:
        cells = [[_fmt(row[c]) for c in self.columns] for row in self.rows]
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(self.columns)]
        lines = [f"== {self.name}: {self.title} =="]
        lines.append("  ".join(c.rjust(w) for c, w in zip(self.columns, widths, strict=True)))
        lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.3g}" if abs(value) >= 0.01 else f"{value:.2g}"
    return str(value)


def machine() -> dict[str, Any]:
    """nproc, CPU model, Python version, platform: what every figure depends on."""
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    return {"nproc": os.cpu_count(), "cpu": cpu, "python": sys.version.split()[0],
            "platform": platform.platform(), "loadavg": [round(x, 2) for x in load]}


def parse_args(argv: Sequence[str] | None, description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--tiny", action="store_true",
                        help="smallest sizes and one repeat: checks the script works, not speed")
    parser.add_argument("--repeats", type=int, default=None, help="interleaved repeats")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    return parser.parse_args(argv)


def run_cli(argv: Sequence[str] | None, description: str,
            body: Callable[[argparse.Namespace], list[Report]]) -> int:
    """Parse the flags, run `body`, print every report and optionally write JSON."""
    args = parse_args(argv, description)
    print(f"machine: {json.dumps(machine())}", flush=True)
    reports = body(args)
    for report in reports:
        print(report.render(), flush=True)
    if args.json:
        write_json(args.json, reports)
    return 0


def write_json(path: str, reports: list[Report]) -> None:
    data = {"machine": machine(), "reports": [r.to_json() for r in reports]}
    Path(path).write_text(json.dumps(data, indent=2, default=str) + "\n")
