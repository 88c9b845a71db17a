"""`I` (stop the tree) on a parent whose delegated child is a runaway (T3 #5587: its run
ended interrupted, its provider runs on): the confirmation names the runaway's forced stop
and its warning, the stop ends the child's processes and the summary names it. The real app,
Pilot, the reference backend's `runaway-provider` scenario with real agent processes."""

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
from t3tui.tui.screens.modals import ConfirmScreen
from t3tui.tui.sources.source import LiveSource
from tests.backend.transport.test_commands import agent_pids_running
from tests.tui.test_live import SIZE, choose, row, select, status
from tests.tui.test_runaway_stop import CHILD, screen_text
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e
PARENT = "Stop my child (its provider runs on)"


async def test_stop_the_tree_on_a_runaways_parent_force_stops_the_runaway() -> None:
    sleep = 600 + 29.25  # a sleep length no other test uses: its processes are found by it
    agents: set[int] = set()
    async with running_backend(scenario="runaway-provider",
                               scenario_params={"sleep": sleep}) as backend:
        try:
            agents = await wait_until(lambda: agent_pids_running(f"sleep {sleep:g}"),
                                      timeout=20, what="the runaway child's command")
            source = LiveSource(Target(backend.url, Secret(backend.token)),
                                config=DetectorConfig(provider_after_interrupt_dwell_s=1.0),
                                backoff=Backoff.fast(), ping_interval=1.0)
            app = SupervisorApp(source, config=TuiConfig(bell=False, confirm_timeout_s=10.0))
            async with app.run_test(size=SIZE) as pilot:
                await until(lambda: (r := row(app, CHILD)) and "runaway" in r.overlays,
                            timeout=30, what="the child flagged runaway")
                parent = await select(pilot, PARENT)
                assert parent.active_run_id is None
                assert app.actions.why_not("stop_tree") is None

                await pilot.press("I")
                await until(lambda: isinstance(app.screen, ConfirmScreen), what="a confirmation")
                said = " ".join(screen_text(app).split())
                assert "Force-stops each runaway" in said and CHILD in said, said
                assert "Interrupts" not in said, said  # no run of the tree is active
                assert "other threads sharing that session lose it too" in said, said
                await choose(pilot, "Stop 1")
                done = await until(lambda: status(app, parent.id, "stop_tree"), timeout=30,
                                   what="the tree stop's outcome")
                assert done.phase == "ok", done.text
                assert done.text == f"stopped 1 of 1: {CHILD} (forced stop: its provider ran on)"
                await wait_until(lambda: not any(pid_alive(pid) for pid in agents),
                                 timeout=15, what="the runaway's processes end")
                await until(lambda: (r := row(app, CHILD)) and "runaway" not in r.overlays,
                            timeout=15, what="the runaway flag cleared")
        finally:
            for pid in agents:  # never leave a sleeper behind, whatever failed
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)
