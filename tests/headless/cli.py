"""Run the real `t3tui` entry point from an async test, next to an in-process backend.

`main()` runs its own event loop (`asyncio.run`), so it runs in a worker thread while the
backend keeps serving on the test's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import threading
from dataclasses import dataclass
from typing import Any

from t3tui.backend.testing import RunningBackend
from t3tui.cli import main

_capture_lock = threading.Lock()


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def server_args(backend: RunningBackend) -> list[str]:
    return ["--url", backend.url, f"--token={backend.token}"]  # `=`: a token may start with "-"


def _run(argv: list[str]) -> Result:
    out, err = io.StringIO(), io.StringIO()
    # redirect_stdout swaps a process-wide attribute: one CLI run at a time.
    with _capture_lock, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return Result(code, out.getvalue(), err.getvalue())


async def cli(*argv: str) -> Result:
    return await asyncio.to_thread(_run, list(argv))
