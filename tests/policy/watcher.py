"""`t3tui watch --act --ndjson` as a real process next to an in-process backend: a server t3tui
did not start, as a systemd unit or a tmux pane would run it. The token travels in the
environment; every line it prints is kept and can be waited for."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from t3tui.backend.testing import RunningBackend
from t3tui.protocol import format_ts, parse_ts
from tests.ctrl_c import as_from_a_terminal

POLICY_004 = '''
[[policy]]
when = "provider-finished-unheard"
after = "1s"
do = ["interrupt", "forward"]
[[policy]]
when = "interrupt-not-landed"
after = "1s"
do = "force-stop"
'''


class Watcher:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.records: list[dict[str, Any]] = []
        self.lines: list[str] = []
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        async for raw in self.proc.stdout:
            line = raw.decode().rstrip("\n")
            self.lines.append(line)
            with contextlib.suppress(ValueError):
                self.records.append(json.loads(line))
            self._changed.set()

    def policy(self, **match: Any) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("kind") == "policy"
                and all(r.get(k) == v for k, v in match.items())]

    async def looked_again(self, since: datetime | str, seconds: float, *,
                           thread: str | None = None, rule: str | None = None,
                           timeout: float = 60) -> dict[str, Any]:
        """The first heartbeat (`"kind": "tick"`, one a second with `--heartbeat 1`) of an
        evaluation at least `seconds` past `since` (a moment, or a record's `at`): every
        decision taken up to that evaluation has been printed before it. With `thread` (and
        `rule`), that evaluation judged the thread's finding again: it still held, and whatever
        the policies did about it is printed."""
        moment = (parse_ts(since) if isinstance(since, str) else since) \
            + timedelta(seconds=seconds)

        def judged(record: dict[str, Any]) -> bool:
            return thread is None or any(
                f["threadId"] == thread and rule in (None, f["rule"])
                for f in record["findings"])

        def found() -> dict[str, Any] | None:
            return next((r for r in self.records if r.get("kind") == "tick"
                         and parse_ts(r["at"]) >= moment and judged(r)), None)

        what = f"evaluation {seconds:g}s past {format_ts(moment - timedelta(seconds=seconds))}"
        if thread is not None:
            what += f" that judged {thread}'s {rule or 'finding'} again"
        return await self.wait_for(found, timeout, what)

    async def wait_for(self, found: Callable[[], Any], timeout: float, what: str) -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (value := found()):
            left = deadline - loop.time()
            if left <= 0 or (self.proc.returncode is not None and self._reader.done()):
                raise AssertionError(f"no {what} within {timeout:g}s; watch printed:\n"
                                     + "\n".join(self.lines[-30:]))
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))
        return value

    async def stop(self) -> int:
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            code = await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()
            code = await self.proc.wait()
        await asyncio.gather(self._reader, return_exceptions=True)
        return code


@contextlib.asynccontextmanager
async def watching(backend: RunningBackend, *flags: str, policy: str | None = POLICY_004,
                   tmp: Path, also: RunningBackend | None = None,
                   heartbeat: str | None = "1") -> AsyncIterator[Watcher]:
    """`also`: a second server; then both are environments, `laptop` (`backend`) and
    `devbox` (`also`), each line naming its own. `heartbeat`: `--heartbeat` (a tick about
    every second, what `looked_again` waits on; None: the default, a minute)."""
    servers = ["--url", backend.url] if also is None else \
        ["--env", f"laptop={backend.url}", "--env", f"devbox={also.url}"]
    argv = [sys.executable, "-m", "t3tui", "watch", "--act", "--ndjson", *servers,
            "--codex-home", str(backend.data_dir / "codex-home"), "--claude-home", "off",
            "--t3-home", "off", "--duration", "300", *flags]
    if heartbeat is not None:
        argv += ["--heartbeat", heartbeat]
    if policy is not None:
        path = tmp / "policies.toml"
        path.write_text(policy)
        argv += ["--policy", str(path)]
    env = {**os.environ, "T3TUI_TOKEN": backend.token, "XDG_CONFIG_HOME": str(tmp / "cfg")}
    if also is not None:
        env.update(T3TUI_TOKEN_LAPTOP=backend.token, T3TUI_TOKEN_DEVBOX=also.token)
    with as_from_a_terminal():  # `stop` is Ctrl-C, whoever started the suite
        proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.PIPE, env=env)
    watcher = Watcher(proc)
    try:
        await watcher.wait_for(
            lambda: sum(r.get("kind") == "policies" for r in watcher.records)
            == (1 if also is None else 2), 30, "'policies on' lines")
        yield watcher
    finally:
        await watcher.stop()
