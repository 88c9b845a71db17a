"""Real subprocesses for the scripted agent, each in its own process group.

A command runs under `sh -c` in a new session, so killing its process group takes down the whole
tree (pipelines, background jobs) on interrupt or shutdown.

An agent dies with its backend, even one killed with `kill -9` (no shutdown runs then): each
group's shell is handed, as its standard input, the read end of a pipe whose write end only
this backend holds (the lifeline). A watchdog in the group blocks reading it; when the backend
dies the kernel closes the write end, the read sees end of file, and the watchdog kills its
whole group. Nothing runs between fork and exec (a `preexec_fn` may deadlock in a parent with
threads, and the store's writer is one), the pipe exists before the child does (no window in
which a backend's death goes unnoticed), it does not depend on which thread forked (as
`PR_SET_PDEATHSIG` does) and it works on any POSIX system. The ledger (`ledger.py`) stays the
fallback: it ends, at the next start, groups whose watchdog is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Mapping
from pathlib import Path

from t3tui.backend.provider.ledger import AgentLedger

KILL_GRACE_SECONDS = 2.0
READ_CHUNK = 4096
DIE_WITH_BACKEND = True  # off only in a test of the ledger, the fallback

# (read end, write end, the pid that made them): a forked copy of this process makes its own
_lifeline: tuple[int, int, int] | None = None


def backend_lifeline() -> int:
    """The read end of this backend's lifeline (both ends are close-on-exec: no child gets
    the write end, and only an agent's shell gets the read end, as its stdin)."""
    global _lifeline
    if _lifeline is None or _lifeline[2] != os.getpid():
        read_end, write_end = os.pipe()
        _lifeline = (read_end, write_end, os.getpid())
    return _lifeline[0]


def group_dies_with_backend(command: str) -> str:
    """`command` under a shell whose watchdog kills the whole process group when the lifeline
    on its stdin reaches end of file. The watchdog reads a copy (fd 3): a background job's
    stdin is /dev/null in a shell without job control. The command gets neither."""
    return ("exec 3<&0 </dev/null\n"
            "{ read _ <&3; kill -KILL 0; } >/dev/null 2>&1 &\n"
            "exec 3<&-\n"
            f"{{\n{command}\n}} &\nwait $!\n")


class ProcessRegistry:
    """Every live subprocess group of one provider instance, so shutdown can kill them all;
    with a `ledger`, also on disk, so a restart after `kill -9` can end them too."""

    def __init__(self, ledger: AgentLedger | None = None) -> None:
        self._procs: set[asyncio.subprocess.Process] = set()
        self.ledger = ledger

    def add(self, proc: asyncio.subprocess.Process) -> None:
        self._procs.add(proc)
        if self.ledger is not None:
            self.ledger.record(proc.pid)

    def discard(self, proc: asyncio.subprocess.Process) -> None:
        self._procs.discard(proc)
        if self.ledger is not None:
            self.ledger.forget(proc.pid)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self._procs]

    async def kill_all(self, grace: float = KILL_GRACE_SECONDS) -> None:
        await asyncio.gather(*(kill_tree(p, grace) for p in list(self._procs)))
        self._procs.clear()


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


async def kill_tree(proc: asyncio.subprocess.Process, grace: float = KILL_GRACE_SECONDS) -> None:
    """SIGTERM the process group, then SIGKILL it if the leader outlives `grace` seconds.

    A caller cancelled meanwhile does not cut the kill short (an agent must not outlive an
    interrupt), but the kill stays bounded, however often it is cancelled: at most `grace`
    after SIGTERM and `grace` after SIGKILL. The cancellation is raised once the kill is done,
    so a cancelled caller (a shutdown cancelling its tasks) does not carry on."""
    _signal_group(proc.pid, signal.SIGTERM)
    cancelled = await _leader_exits(proc, grace)  # a cancel cuts the grace short: SIGKILL now
    if proc.returncode is None:
        _signal_group(proc.pid, signal.SIGKILL)
        cancelled = await _leader_exits(proc, grace) or cancelled
    # members that ignored SIGTERM or outlived the leader (background jobs) go too
    _signal_group(proc.pid, signal.SIGKILL)
    if cancelled:
        raise asyncio.CancelledError


async def _leader_exits(proc: asyncio.subprocess.Process, grace: float) -> bool:
    """Wait up to `grace` seconds for the group's leader to exit; True when a cancellation
    came meanwhile (held back for the caller to raise)."""
    try:
        await asyncio.wait_for(proc.wait(), grace)
    except TimeoutError:
        return False
    except asyncio.CancelledError:
        return True
    return False


async def run_command(
    command: str,
    *,
    cwd: Path,
    on_output: Callable[[str], None],
    registry: ProcessRegistry,
    env: Mapping[str, str] | None = None,
    on_start: Callable[[int], None] | None = None,
    lifeline: int | None = None,
) -> int:
    """Run `command` with `sh -c`, streaming stdout+stderr to `on_output`; return its exit code.
    Its group dies when `lifeline` (default: this backend's) reaches end of file.

    Cancellation (an interrupt) kills the process group before the cancellation propagates.
    """
    full_env = {**os.environ, **(env or {})}
    if lifeline is None and DIE_WITH_BACKEND:
        lifeline = backend_lifeline()
    proc = await asyncio.create_subprocess_shell(
        group_dies_with_backend(command) if lifeline is not None else command,
        stdin=lifeline if lifeline is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        cwd=str(cwd),
        env=full_env,
        start_new_session=True,
    )
    registry.add(proc)
    try:
        if on_start is not None:
            on_start(proc.pid)
        assert proc.stdout is not None
        while chunk := await proc.stdout.read(READ_CHUNK):
            on_output(chunk.decode("utf-8", errors="replace"))
        return await proc.wait()
    finally:
        # always reap the group: a cancelled read, or background jobs left behind by the command
        if proc.returncode is None:
            await asyncio.shield(kill_tree(proc))
        else:
            _signal_group(proc.pid, signal.SIGKILL)
        registry.discard(proc)
