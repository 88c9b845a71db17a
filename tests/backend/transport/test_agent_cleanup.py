"""An agent dies with its backend: `kill -9` of the server ends its agents' whole process
groups within moments (their watchdogs see the backend's lifeline close). Where a group's
watchdog is gone, the next start on the same data dir ends exactly those process groups (T3
treats a previous server's provider processes as gone).
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from t3tui.backend.provider.ledger import AgentLedger, start_time
from t3tui.backend.testing import BackendProcess, descendant_pids, pid_alive, wait_until
from tests.backend.transport.rawclient import RawRpc
from tests.backend.transport.test_commands import LAUNCH, launch

pytestmark = pytest.mark.e2e


def agents_of(pid: int, marker: str) -> set[int]:
    found = set()
    for child in descendant_pids(pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline:
            found.add(child)
    return found


async def test_kill_9_of_the_backend_ends_its_agents_and_their_children(tmp_path):
    marker = "sleep 41.25"  # a compound command: the shell, and the sleep it forks
    server = BackendProcess(scenario=None, data_dir=tmp_path).start()
    agents: set[int] = set()
    try:
        async with await RawRpc.open(server.url, server.token) as client:
            await client.ok(LAUNCH, launch("thread-orphan", f"Run `{marker}; echo done`, "
                                           "then reply DONE"))
            agents = await wait_until(  # the shell and the sleep it forked
                lambda: found if len(found := agents_of(server.pid, marker)) >= 2 else None,
                timeout=20, what="the agent's shell and its child")
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        await wait_until(lambda: not any(pid_alive(pid) for pid in agents), timeout=10,
                         what="the agents end with their backend")
    finally:
        server.stop()
        for pid in agents:  # never leave a sleeper behind, whatever failed
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)


# `t3tui serve` with agents that do not die with it (as when a group's watchdog was killed)
UNTIED = ("import sys, t3tui.backend.provider.process as p; p.DIE_WITH_BACKEND = False; "
          "from t3tui.cli import main; sys.exit(main(sys.argv[1:]))")


async def test_a_restart_after_kill_9_ends_the_previous_runs_agents(tmp_path):
    marker = "sleep 43.75"
    first = BackendProcess(scenario=None, data_dir=tmp_path)
    first._argv[1:3] = ["-c", UNTIED]
    first.start()
    agents: set[int] = set()
    try:
        async with await RawRpc.open(first.url, first.token) as client:
            await client.ok(LAUNCH, launch("thread-orphan", f"Run `{marker}`, then reply DONE"))
            agents = await wait_until(lambda: agents_of(first.pid, marker), timeout=20,
                                      what="the agent process")
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        assert all(pid_alive(pid) for pid in agents)  # orphaned, still running
        assert list((tmp_path / "agent-groups").iterdir())
        with BackendProcess(scenario=None, data_dir=tmp_path, token=first.token).start():
            await wait_until(lambda: not any(pid_alive(pid) for pid in agents), timeout=20,
                             what="the previous run's agents end")
    finally:
        first.stop()
        for pid in agents:  # never leave a sleeper behind, whatever failed
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_recorded_pid_that_now_belongs_to_another_process_is_left_alone(tmp_path):
    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        ledger = AgentLedger(tmp_path / "agent-groups")
        ledger.directory.mkdir()
        (ledger.directory / str(other.pid)).write_text("1")  # a start time it does not have
        assert start_time(other.pid) not in (None, "1")
        assert ledger.reap_previous() == []
        assert other.poll() is None
        assert not list(ledger.directory.iterdir())  # the stale entry is gone
        ledger.record(other.pid)  # recorded by this run: the same process, so it is ended
        assert ledger.reap_previous() == [other.pid]
        assert other.wait(5) == -signal.SIGTERM
    finally:
        if other.poll() is None:
            other.kill()
            other.wait()


async def test_serve_exits_in_bounded_time_with_an_agent_that_ignores_sigterm(tmp_path):
    # The shutdown's kill waits for such an agent (SIGTERM, a grace, SIGKILL, a grace), and no
    # longer: serve exits cleanly (143, not killed by the stop's own fallback) well within it.
    marker = "sleep 0.4375"
    server = BackendProcess(scenario=None, data_dir=tmp_path).start()
    agents: set[int] = set()
    try:
        async with await RawRpc.open(server.url, server.token) as client:
            await client.ok(LAUNCH, launch("thread-stubborn", "Run `trap '' TERM; while :; do "
                                           f"{marker}; done`, then reply DONE"))
            agents = await wait_until(lambda: agents_of(server.pid, "trap"), timeout=20,
                                      what="the agent's shell")
        # 2 s of grace after SIGTERM, 2 s after SIGKILL: the stop gives it 3 times that
        assert server.stop(timeout=12) == 128 + signal.SIGTERM
        assert not any(pid_alive(pid) for pid in agents)
    finally:
        server.stop()
        for pid in agents:
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
