"""Benchmark servers in child processes, so they do not share a core (or the GIL) with the
consumer being measured."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

LISTENING = "LISTENING "
ROOT = Path(__file__).resolve().parents[1]  # so `-m benchmarks...` resolves in the child


class ChildServer:
    """`python -m <module> <args>`: prints `LISTENING <url>`, then one JSON line per run.

    The child stops when its stdin closes, so it never outlives the benchmark.
    """

    def __init__(self, module: str, *args: str, startup_timeout: float = 120.0,
                 env: dict[str, str] | None = None) -> None:
        self.argv = [sys.executable, "-m", module, *args]
        self.env = dict(os.environ, **(env or {}))
        self.url = ""
        self.startup_timeout = startup_timeout
        self._proc: asyncio.subprocess.Process | None = None

    @property
    def ws_url(self) -> str:
        return "ws" + self.url.removeprefix("http") + "/ws"

    async def start(self) -> ChildServer:
        self._proc = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            limit=64 * 1024 * 1024, cwd=ROOT, env=self.env,
        )
        line = await self.line(self.startup_timeout)
        if not line.startswith(LISTENING):
            await self.stop()
            raise RuntimeError(f"{self.argv[2]} did not start: {line!r}")
        self.url = line.removeprefix(LISTENING).strip()
        return self

    async def line(self, timeout: float) -> str:
        assert self._proc is not None and self._proc.stdout is not None
        raw = await asyncio.wait_for(self._proc.stdout.readline(), timeout)
        if not raw:
            raise RuntimeError(f"{self.argv[2]} exited (code {await self._proc.wait()})")
        return raw.decode().strip()

    async def result(self, timeout: float) -> dict[str, Any]:
        """The next run's JSON line (raises on a reported error)."""
        data = json.loads(await self.line(timeout))
        if "error" in data:
            raise RuntimeError(f"{self.argv[2]}: {data['error']}")
        return data

    async def send(self, text: str) -> None:
        """A command line on the child's stdin (for servers that take commands)."""
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(text.encode() + b"\n")
        await self._proc.stdin.drain()

    async def stop(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()

    async def __aenter__(self) -> ChildServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
