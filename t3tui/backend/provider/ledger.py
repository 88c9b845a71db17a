"""Which agent process groups this backend started, kept on disk so the next run can end them.

Agents run in process groups of their own (`process.run_command`). A backend killed with
`kill -9` cannot end them, and they would run on, unsupervised, after a restart (T3 treats
provider processes of a previous server as gone). Each live group is one file in
`<data_dir>/agent-groups/`, named by its process group id and holding the leader's start time,
so a restart ends exactly those groups: a recorded leader whose start time differs is another
process that reused the pid, and is left alone. Linux never hands out a pid that is still in
use as a process group id, so a group whose leader has exited is still ours to end.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
from pathlib import Path

log = logging.getLogger(__name__)
DIR_NAME = "agent-groups"
TERM_GRACE_S = 1.0


def start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = stat[stat.rfind(")") + 2:].split()
    return fields[19] if len(fields) > 19 else None


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class AgentLedger:
    """The on-disk list of this backend's live agent process groups."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def record(self, pgid: int) -> None:
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = self.directory / str(pgid)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(start_time(pgid) or "")
        except OSError as exc:  # the agent still runs; only the cleanup after a crash is lost
            log.warning("cannot record agent process group %d: %s", pgid, exc)

    def forget(self, pgid: int) -> None:
        with contextlib.suppress(OSError):
            (self.directory / str(pgid)).unlink()

    def reap_previous(self) -> list[int]:
        """End every group a previous run recorded and did not forget; returns their ids."""
        try:
            entries = list(self.directory.iterdir())
        except OSError:
            return []
        ended = []
        for path in entries:
            try:
                pgid = int(path.name)
                recorded = path.read_text().strip()
            except (ValueError, OSError):
                continue
            finally:
                with contextlib.suppress(OSError):
                    path.unlink()
            now = start_time(pgid)
            if now is not None and recorded and now != recorded:
                continue  # that pid is another process now
            if group_alive(pgid):
                _end_group(pgid)
                ended.append(pgid)
        if ended:
            log.warning("ended %d agent process group(s) left running by the previous run "
                        "(%s)", len(ended), ", ".join(map(str, ended)))
        return ended


def _end_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + TERM_GRACE_S
    while time.monotonic() < deadline and group_alive(pgid):
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
