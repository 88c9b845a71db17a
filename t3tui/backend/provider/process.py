"""Real subprocesses for the scripted agent, each in its own process group.

A command runs under `sh -c` in a new session, so killing its process group takes down the whole
tree (pipelines, background jobs) on interrupt or shutdown.

An agent dies with its backend, even one killed with `kill -9` (no shutdown runs then): on
Linux the shell leading the group asks the kernel for SIGHUP when the backend goes
(`prctl(PR_SET_PDEATHSIG)` before exec), and its trap kills the whole group. Elsewhere the
ledger (`ledger.py`) ends such groups at the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from t3tui.backend.provider.ledger import AgentLedger

KILL_GRACE_SECONDS = 2.0
READ_CHUNK = 4096
PR_SET_PDEATHSIG = 1
DIE_WITH_BACKEND = True  # off only in a test of the ledger, the fallback


def _libc_prctl() -> Callable[..., int] | None:
    """libc's `prctl`, looked up once here (the forked child only calls it); None off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


PRCTL = _libc_prctl()


def _hangup_when_gone(backend: int) -> Callable[[], None]:
    """For the child, between fork and exec: SIGHUP when the backend dies. A backend already
    gone (between fork and this call) is not noticed by the kernel: end the child now."""

    def tie() -> None:
        assert PRCTL is not None
        PRCTL(PR_SET_PDEATHSIG, signal.SIGHUP, 0, 0, 0)
        if os.getppid() != backend:
            os._exit(129)

    return tie


def group_dies_with_leader(command: str) -> str:
    """`command` under a shell that kills its whole process group on SIGHUP (the kernel's
    parent-death signal reaches only the leader; its children would live on)."""
    return f"trap 'kill -KILL 0' HUP\n{{\n{command}\n}} &\nwait $!\n"


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
    """SIGTERM the process group, then SIGKILL it if the leader outlives `grace` seconds."""
    _signal_group(proc.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), grace)
    except (TimeoutError, asyncio.CancelledError):
        _signal_group(proc.pid, signal.SIGKILL)
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(proc.wait(), grace)
    # members that ignored SIGTERM or outlived the leader (background jobs) go too
    _signal_group(proc.pid, signal.SIGKILL)


async def run_command(
    command: str,
    *,
    cwd: Path,
    on_output: Callable[[str], None],
    registry: ProcessRegistry,
    env: Mapping[str, str] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> int:
    """Run `command` with `sh -c`, streaming stdout+stderr to `on_output`; return its exit code.

    Cancellation (an interrupt) kills the process group before the cancellation propagates.
    """
    full_env = {**os.environ, **(env or {})}
    tied = DIE_WITH_BACKEND and PRCTL is not None
    proc = await asyncio.create_subprocess_shell(
        group_dies_with_leader(command) if tied else command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        cwd=str(cwd),
        env=full_env,
        start_new_session=True,
        preexec_fn=_hangup_when_gone(os.getpid()) if tied else None,
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
