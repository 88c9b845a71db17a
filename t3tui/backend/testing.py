"""Start a reference backend for tests, benchmarks and the embedded demo.

- `running_backend(...)`: in this event loop, on `127.0.0.1:0`, with a fresh token and (unless
  given) a temporary data directory.
- `BackendProcess`: `python -m t3tui serve --port 0` in a child process, for callers that must
  not share their event loop with the backend (the TUI demo, CLI tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from t3tui.backend.auth import Clock, generate_token, utc_now
from t3tui.backend.serve import LISTENING_PREFIX, TOKEN_ENV
from t3tui.backend.server import BackendOptions, RunningBackend, open_backend

__all__ = [
    "BackendProcess",
    "BackendStartError",
    "RunningBackend",
    "descendant_pids",
    "pid_alive",
    "poll_until",
    "running_backend",
    "wait_until",
]


@contextlib.asynccontextmanager
async def running_backend(
    *,
    scenario: str | os.PathLike[str] | None = None,
    scenario_params: dict[str, Any] | None = None,
    scenario_in_background: bool = False,
    dispatch: str = "parallel",
    faults: Iterable[str] = (),
    data_dir: str | os.PathLike[str] | None = None,
    token: str | None = None,
    clock: Clock = utc_now,
    t3_state: str | os.PathLike[str] | None = None,
    allowed_origins: Iterable[str] = (),
) -> AsyncIterator[RunningBackend]:
    """A backend on `127.0.0.1:0`: `b.url`, `b.ws_url`, `b.token`, `b.engine`, `b.port`.

    The scenario's steps have run when this yields, unless `scenario_in_background` (then
    `b.scenario_task` runs them while the test watches).
    """
    with tempfile.TemporaryDirectory(prefix="t3tui-backend-") as temp:
        options = BackendOptions(
            data_dir=Path(data_dir) if data_dir is not None else Path(temp),
            token=token or generate_token(),
            port=0,
            scenario=Path(scenario) if isinstance(scenario, os.PathLike) else scenario,
            scenario_params=dict(scenario_params or {}),
            scenario_in_background=scenario_in_background,
            dispatch=dispatch,
            faults=tuple(faults),
            clock=clock,
            t3_state=Path(t3_state) if t3_state is not None else None,
            allowed_origins=tuple(allowed_origins),
        )
        async with open_backend(options) as backend:
            yield backend


class BackendStartError(RuntimeError):
    """The backend process did not come up; the message holds the end of its stderr."""


class BackendProcess:
    """`t3tui serve` in a child process; `start()` returns once it listens.

    The token travels in the environment (not argv, which other users can read), and the child
    runs with `--exit-with-stdin`, so it stops on its own if this process dies.
    """

    def __init__(
        self,
        *,
        scenario: str | None = "demo",
        dispatch: str = "parallel",
        faults: Iterable[str] = (),
        scenario_params: dict[str, Any] | None = None,
        data_dir: str | os.PathLike[str] | None = None,
        token: str | None = None,
        extra_args: Sequence[str] = (),
        startup_timeout: float = 30.0,
    ) -> None:
        self.token = token or generate_token()
        self.data_dir = Path(data_dir) if data_dir is not None else None  # None: the child's temp dir
        self.url = ""
        self._argv = [sys.executable, "-m", "t3tui", "serve", "--port", "0", "--exit-with-stdin"]
        self._argv += ["--scenario", scenario or "none", "--dispatch", dispatch]
        for fault in faults:
            self._argv += ["--fault", fault]
        for name, value in (scenario_params or {}).items():
            self._argv += ["--scenario-param", f"{name}={json.dumps(value)}"]
        if data_dir is not None:
            self._argv += ["--data-dir", str(data_dir)]
        self._argv += list(extra_args)
        self._startup_timeout = startup_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()

    @property
    def ws_url(self) -> str:
        return "ws" + self.url.removeprefix("http") + "/ws"

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    @property
    def pid(self) -> int:
        if self._proc is None:
            raise RuntimeError("the backend process is not started")
        return self._proc.pid

    def start(self) -> BackendProcess:
        """Spawn the server and wait for its URL (raises `BackendStartError`)."""
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        env = dict(os.environ, **{TOKEN_ENV: self.token})
        self._proc = subprocess.Popen(
            self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env
        )
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        deadline = time.monotonic() + self._startup_timeout
        while not self.url:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.stop()
                raise BackendStartError(
                    f"backend did not listen within {self._startup_timeout}s"
                ) from None
            if line is None:
                self.stop()
                raise BackendStartError(f"backend exited during startup: {self._stderr_tail()}")
            if line.startswith(LISTENING_PREFIX):
                self.url = line.removeprefix(LISTENING_PREFIX).strip()
        return self

    def poll(self) -> int | None:
        """The server's exit code, or None while it runs (or before `start()`)."""
        return self._proc.poll() if self._proc is not None else None

    def send_signal(self, signum: int) -> None:
        """Deliver a signal to the server (SIGINT and SIGTERM both shut it down cleanly)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.send_signal(signum)

    def close_stdin(self) -> None:
        """Close the server's standard input: with `--exit-with-stdin` it shuts down."""
        if self._proc is not None and self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()

    def wait(self, timeout: float) -> int:
        """Wait for the server to exit; its exit code (raises `subprocess.TimeoutExpired`)."""
        if self._proc is None:
            raise RuntimeError("the backend process is not started")
        return self._proc.wait(timeout)

    def stop(self, timeout: float = 15.0) -> int | None:
        """SIGTERM (clean shutdown: every agent process stopped), then SIGKILL if it hangs."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._final_stderr = self.stderr_text()  # kept for reading after the stop
        for stream in (proc.stdin, proc.stdout, self._stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        return proc.returncode

    def __enter__(self) -> BackendProcess:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _pump_stdout(self) -> None:
        # Keep draining after startup too: a child blocked on a full pipe would hang.
        assert self._proc is not None and self._proc.stdout is not None
        for raw in self._proc.stdout:
            self._lines.put(raw.decode(errors="replace"))
        self._lines.put(None)

    def stderr_text(self) -> str:
        """Everything the server wrote to stderr so far (also after `stop()`)."""
        if self._stderr is None or self._stderr.closed:
            return getattr(self, "_final_stderr", "")
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def _stderr_tail(self, limit: int = 2000) -> str:
        return self.stderr_text().strip()[-limit:] or "(no output)"


def poll_until(
    predicate: Callable[[], Any], *, timeout: float = 10.0, interval: float = 0.02, what: str = ""
) -> Any:
    """Blocking twin of `wait_until`, for code outside an event loop."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"condition not met within {timeout}s: {what or predicate!r}")
        time.sleep(interval)


def descendant_pids(pid: int) -> set[int]:
    """Every live descendant of `pid` (Linux `/proc`); empty where `/proc` is missing."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            # The command name may contain spaces and parentheses: split after the last ")".
            fields = entry.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.parent.name))
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def pid_alive(pid: int) -> bool:
    """Whether `pid` is a running (not zombie) process."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


async def wait_until(
    predicate: Callable[[], Any], *, timeout: float = 10.0, interval: float = 0.02, what: str = ""
) -> Any:
    """Poll `predicate` until it returns something truthy (returned), or fail at the deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if loop.time() >= deadline:
            raise TimeoutError(f"condition not met within {timeout}s: {what or predicate!r}")
        await asyncio.sleep(interval)
