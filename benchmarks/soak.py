"""Benchmark: what t3tui costs when it runs for a long time (issue 25).

A replay server (a child process) holds `threads` threads and streams `rate` items per second
for `minutes`; two consumers, each in its own process and on its own server, run at once:
`t3tui watch --ndjson` and the app, headless (`benchmarks/soak_app.py`). For each, sampled
from `/proc` every few seconds from the moment the stream starts:

- CPU share = the process's CPU time (user + system) / wall time: the share of one core it
  used. CPU time counts only what the process itself ran, so a loaded machine does not
  inflate it (it can only slow the stream down, which `burst s` shows).
- RSS over time, and its growth after the first minute (a fifth of the run when shorter).

`--consumers watch-act` measures `watch --act --dry-run` (the recommended policies) instead,
or as well: the unattended supervisor's loop.

`python -m benchmarks.soak [--tiny] [--minutes M] [--consumers ...] [--json PATH]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.common import Report, machine, write_json
from benchmarks.procs import ROOT, ChildServer

CLOCK_TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
MB = 1024 * 1024
READY_TIMEOUT = 300.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux `/proc/PID/stat`)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICK


def rss_bytes(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE


@dataclass
class Soak:
    consumer: str
    samples: list[tuple[float, float, int]] = field(default_factory=list)  # (t, cpu s, rss)
    burst_s: float = float("nan")
    lines: int = 0

    @property
    def wall(self) -> float:
        return self.samples[-1][0] - self.samples[0][0]

    @property
    def cpu(self) -> float:
        return self.samples[-1][1] - self.samples[0][1]

    def rss_at(self, t: float) -> int:
        """RSS at the first sample at or after `t` seconds into the stream."""
        return next((r for at, _, r in self.samples if at - self.samples[0][0] >= t),
                    self.samples[-1][2])

    def slope(self, after: float) -> float:
        """Least-squares RSS growth in MB per minute over the samples after `after` s."""
        points = [(t - self.samples[0][0], r / MB) for t, _, r in self.samples
                  if t - self.samples[0][0] >= after]
        if len(points) < 2:
            return float("nan")
        mean_t = sum(t for t, _ in points) / len(points)
        mean_r = sum(r for _, r in points) / len(points)
        den = sum((t - mean_t) ** 2 for t, _ in points)
        return 60 * sum((t - mean_t) * (r - mean_r) for t, r in points) / den if den else 0.0


async def _sample(pid: int, soak: Soak, seconds: float, interval: float) -> None:
    start = time.monotonic()
    while True:
        now = time.monotonic()
        soak.samples.append((now, cpu_seconds(pid), rss_bytes(pid)))
        if now - start >= seconds:
            return
        await asyncio.sleep(min(interval, max(0.0, start + seconds - now)))


async def _drain(stream: asyncio.StreamReader, soak: Soak) -> None:
    while await stream.readline():
        soak.lines += 1


async def soak_one(consumer: str, threads: int, rate: float, seconds: float,
                   interval: float) -> Soak:
    """One consumer against its own replay server: sampled from the stream's start for
    `seconds` (the burst lasts as long when the consumer keeps up)."""
    events = int(rate * seconds)
    server = ChildServer("benchmarks.replay_server", "--threads", str(threads), "--events",
                         str(events), "--item-ms", str(1000 / rate), "--rate", str(rate),
                         "--wait-go")
    soak = Soak(consumer)
    with tempfile.TemporaryDirectory() as tmp:
        return await _soak_one(consumer, threads, server, soak, seconds, interval, Path(tmp))


async def _soak_one(consumer: str, threads: int, server: ChildServer, soak: Soak,
                    seconds: float, interval: float, scratch: Path) -> Soak:
    async with server:
        env = dict(os.environ, T3TUI_TOKEN="bench-token")
        if consumer == "watch":
            argv = ["-m", "t3tui", "watch", "--ndjson", "--url", server.url]
        elif consumer == "watch-act":
            # the recommended policies, dry run: no config file or acted log of this machine's
            argv = ["-m", "t3tui", "watch", "--ndjson", "--act", "--dry-run",
                    "--no-provider-records", "--url", server.url]
            env.update(XDG_CONFIG_HOME=str(scratch), T3TUI_ACTED_LOG=str(scratch / "acted"))
        else:
            argv = ["-m", "benchmarks.soak_app", server.url, str(threads)]
        proc = await asyncio.create_subprocess_exec(
            sys.executable, *argv, cwd=ROOT, env=env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            limit=16 * MB)
        assert proc.stdout is not None and proc.stdin is not None
        drain = None
        try:
            # watch's first line is `connection live`: every stream is synchronized by then
            first = await asyncio.wait_for(proc.stdout.readline(), READY_TIMEOUT)
            if not first:
                raise RuntimeError(f"{consumer} exited (code {await proc.wait()})")
            drain = asyncio.create_task(_drain(proc.stdout, soak))
            await server.send("go")
            await _sample(proc.pid, soak, seconds, interval)
            with contextlib.suppress(TimeoutError):
                soak.burst_s = (await server.result(max(30.0, seconds)))["burst_s"]
        finally:
            if proc.returncode is None:
                proc.stdin.close()
                if consumer.startswith("watch"):
                    # SIGTERM, not Ctrl-C: a benchmark run as a background job of a script
                    # has SIGINT ignored, and watch rightly keeps an inherited ignore
                    proc.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(proc.wait(), 30)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()
            if drain is not None:
                drain.cancel()
    return soak


CONSUMERS = ("watch", "app")  # what `make bench` runs
CHOICES = (*CONSUMERS, "watch-act")  # watch --act --dry-run: the policies' path, on demand


async def measure(threads: int, rate: float, minutes: float, interval: float,
                  consumers: Sequence[str] = CONSUMERS) -> list[Report]:
    seconds = minutes * 60
    warmup = 60.0 if seconds >= 120 else seconds / 5  # the first minute (a fifth when short)
    soaks = await asyncio.gather(*(soak_one(c, threads, rate, seconds, interval)
                                   for c in consumers))
    report = Report(
        "soak", f"long-running cost: {threads:,} threads at {rate:g} items/s for "
        f"{minutes:g} min, {' and '.join(consumers)} at once"
        + (" (the app headless)" if "app" in consumers else ""),
        ["consumer", "cpu s", "wall s", "cpu share", "burst s", f"RSS @{warmup:g}s MB",
         "RSS end MB", "growth after MB", "MB/min"])
    for soak in soaks:
        start = soak.rss_at(warmup)
        report.add(consumer=soak.consumer, **{
            "cpu s": soak.cpu, "wall s": soak.wall, "cpu share": soak.cpu / soak.wall,
            "burst s": soak.burst_s, f"RSS @{warmup:g}s MB": start / MB,
            "RSS end MB": soak.samples[-1][2] / MB,
            "growth after MB": (soak.samples[-1][2] - start) / MB,
            "MB/min": soak.slope(warmup)})
    report.notes += [
        "cpu share = process CPU time (user + system, /proc) / wall time from the stream's "
        "start: the share of one core; robust to a loaded machine, which only slows the "
        "stream (burst s > the run's length: the consumer or the machine fell behind)",
        f"growth after = RSS at the end - RSS {warmup:g} s in; MB/min = least-squares slope "
        f"of the samples after {warmup:g} s",
        "targets (issue 25): watch cpu share <= 0.15 at 2,000 threads and 200 items/s; RSS "
        "growth <= 3 MB over 10 minutes after the first",
    ]
    over = Report("soak-rss", "RSS over time (MB), sampled from /proc",
                  ["t s", *(s.consumer for s in soaks)])
    step = max(interval, seconds / 10)
    t = 0.0
    while t <= seconds + 1e-9:
        over.add(**{"t s": t}, **{s.consumer: s.rss_at(t) / MB for s in soaks})
        t += step
    return [report, over]


def run(tiny: bool = False, repeats: int | None = None, minutes: float | None = None,
        consumers: Sequence[str] = CONSUMERS) -> list[Report]:
    del repeats  # one long run: its length is the repeat
    if tiny:
        return asyncio.run(measure(200, rate=100, minutes=minutes or 0.15, interval=0.5,
                                   consumers=consumers))
    return asyncio.run(measure(2_000, rate=200, minutes=minutes or 3, interval=5.0,
                               consumers=consumers))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="seconds, not minutes")
    parser.add_argument("--minutes", type=float, default=None,
                        help="length of the stream (default 3; the issue's figure is 10)")
    parser.add_argument("--consumers", nargs="+", choices=CHOICES, default=list(CONSUMERS),
                        help="which consumers to run (default watch and app; watch-act is "
                        "watch --act --dry-run with the recommended policies)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    print(f"machine: {machine()}", flush=True)
    reports = run(args.tiny, minutes=args.minutes, consumers=args.consumers)
    for report in reports:
        print(report.render(), flush=True)
    if args.json:
        write_json(args.json, reports)
    return 0


if __name__ == "__main__":
    sys.exit(main())
