"""The app's forced stop of a runaway provider, refused by the server: its toast is the
server's refusal and nothing else, never a detach. The real app, Pilot, the reference
backend's `runaway-provider` scenario with real agent processes; another client's detach of
the same session lands first, so the backend refuses t3tui's (`tests/headless/
test_force_refused_e2e.py` does the same to the CLI)."""

from __future__ import annotations

import os
import signal

import pytest

from t3tui.backend.testing import pid_alive, running_backend, wait_until
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.model import DetectorConfig
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.sources.source import LiveSource
from tests.backend.transport.test_commands import agent_pids_running
from tests.headless.test_force_refused_e2e import another_client_detaches_first
from tests.tui.test_live import SIZE, choose, row, select, status
from tests.tui.test_runaway_stop import CHILD
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


async def test_a_refused_forced_stop_of_a_runaway_toasts_the_refusal_alone() -> None:
    sleep = 600 + 43.25  # a sleep length no other test uses: its processes are found by it
    agents: set[int] = set()
    async with running_backend(scenario="runaway-provider",
                               scenario_params={"sleep": sleep}) as backend:
        try:
            agents = await wait_until(lambda: agent_pids_running(f"sleep {sleep:g}"),
                                      timeout=20, what="the runaway child's command")
            source = LiveSource(Target(backend.url, Secret(backend.token)),
                                config=DetectorConfig(provider_after_interrupt_dwell_s=1.0),
                                backoff=Backoff.fast(), ping_interval=1.0)
            app = SupervisorApp(source, config=TuiConfig(bell=False, confirm_timeout_s=5.0))
            async with app.run_test(size=SIZE, notifications=True) as pilot:
                await until(lambda: (r := row(app, CHILD)) and "runaway" in r.overlays,
                            timeout=30, what="the child flagged runaway")
                child = await select(pilot, CHILD)
                with another_client_detaches_first(backend) as beaten:
                    await pilot.press("i")
                    await choose(pilot, "Force stop")
                    forced = await until(lambda: status(app, child.id, "interrupt"),
                                         timeout=30, what="the forced stop's outcome")
                assert len(beaten) == 1, beaten
                refusal = (f"server refused: Provider session {beaten[0]} is not attached "
                           f"to thread {child.id}.")
                assert (forced.phase, forced.text) == ("failed", refusal), forced
                toasts = await until(
                    lambda: [n.message for n in app._notifications
                             if n.title.startswith("Interrupt")] or None,
                    what="the forced stop's toast")
                assert toasts == [refusal], toasts
        finally:
            for pid in agents:  # never leave a sleeper behind, whatever failed
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)
