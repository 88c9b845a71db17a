"""Every benchmark in one run (`make bench`): `python -m benchmarks.run_all [--tiny]
[--repeats N] [--json PATH] [--only NAME ...]`."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from benchmarks import (
    fanout,
    first_tree,
    ingest,
    proof_read,
    replay_open,
    scaling,
    soak,
    tui_load,
)
from benchmarks.common import Report, machine, write_json

BENCHMARKS: dict[str, Callable[[bool, int | None], list[Report]]] = {
    "ingest": ingest.run,
    "scaling": scaling.run,
    "tui": tui_load.run,
    "first_tree": first_tree.run,
    "fanout": fanout.run,
    "proof": proof_read.run,
    "replay": replay_open.run,
    "soak": soak.run,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run every t3tui benchmark; see BENCHMARKS.md.")
    parser.add_argument("--tiny", action="store_true",
                        help="smallest sizes and one repeat: checks the scripts, not speed")
    parser.add_argument("--repeats", type=int, default=None, help="interleaved repeats")
    parser.add_argument("--json", metavar="PATH", help="also write every result as JSON")
    parser.add_argument("--only", nargs="+", choices=list(BENCHMARKS), metavar="NAME",
                        help=f"run only these ({', '.join(BENCHMARKS)})")
    args = parser.parse_args(argv)
    info = machine()
    print(f"machine: nproc={info['nproc']} cpu={info['cpu']!r} python={info['python']} "
          f"load={info['loadavg']}", flush=True)
    reports: list[Report] = []
    started = time.perf_counter()
    for name, run in BENCHMARKS.items():
        if args.only and name not in args.only:
            continue
        began = time.perf_counter()
        for report in run(args.tiny, args.repeats):
            print(report.render(), flush=True)
            reports.append(report)
        print(f"({name}: {time.perf_counter() - began:.1f}s)\n", flush=True)
    print(f"total: {time.perf_counter() - started:.1f}s", flush=True)
    if args.json:
        write_json(args.json, reports)
    return 0


if __name__ == "__main__":
    sys.exit(main())
