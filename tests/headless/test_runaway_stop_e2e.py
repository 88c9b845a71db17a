"""A runaway provider (T3 #5587: the run ended `interrupted`, the provider turn runs on) is
stopped from the CLI: plain `t3tui interrupt` names the forced stop as the remedy and stops
nothing; `--force` detaches the thread's provider session, the agent's processes end and the
finding clears. The reference backend's `runaway-provider` scenario, real agent processes,
the default dwells (a one-shot command sees the finding only once its dwell held)."""

from __future__ import annotations

import os
import signal

import pytest

from t3tui.backend.testing import pid_alive, running_backend, wait_until
from t3tui.model import DetectorConfig
from tests.backend.transport.test_commands import agent_pids_running
from tests.headless.cli import cli, server_args
from tests.headless.test_second_wave_e2e import finding, now, rule_on, watching

pytestmark = pytest.mark.e2e
RULE = "provider-active-after-interrupt"


async def test_interrupt_names_the_forced_stop_and_force_ends_a_runaway_provider() -> None:
    sleep = 600 + 53.25  # a sleep length no other test uses: its processes are found by it
    agents: set[int] = set()
    async with running_backend(scenario="runaway-provider",
                               scenario_params={"sleep": sleep}) as backend, \
            watching(backend, DetectorConfig()) as (session, sup):
        try:
            agents = await wait_until(lambda: agent_pids_running(f"sleep {sleep:g}"),
                                      timeout=20, what="the runaway child's command")
            found = await finding(session, sup, RULE, 60)
            assert found is not None, "the runaway was never flagged"
            child = found.thread_id

            plain = await cli("interrupt", child, *server_args(backend))
            assert plain.code == 1, plain
            assert "forced stop" in plain.out and " --force" in plain.out, plain
            assert all(pid_alive(pid) for pid in agents)  # a plain interrupt stops nothing

            forced = await cli("interrupt", child, "--force", *server_args(backend))
            assert forced.code == 0, forced
            assert "force-stopped" in forced.out and "provider" in forced.out, forced
            await wait_until(lambda: not any(pid_alive(pid) for pid in agents),
                             timeout=15, what="the runaway's processes end")
            cleared = await session.wait_until(
                lambda: rule_on(sup.view(now()), RULE) is None or None, 10)
            assert cleared, "the finding did not clear"
        finally:
            for pid in agents:  # never leave a sleeper behind, whatever failed
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)
