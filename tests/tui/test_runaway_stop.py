"""`i` on a runaway-flagged thread (T3 #5587: its run ended `interrupted`, its provider runs
on) offers the forced stop at once, with its warning; the detail pane names it as the remedy.
The real app, Pilot, the reference backend's `runaway-provider` scenario with real agent
processes: the forced stop ends them and the flag clears from the stream."""

from __future__ import annotations

import os
import signal

import pytest
from textual.widgets import Static

from t3tui.backend.testing import pid_alive, running_backend, wait_until
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.model import DetectorConfig
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.screens.modals import ConfirmScreen
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.panes import DetailPane
from tests.backend.transport.test_commands import agent_pids_running
from tests.tui.test_live import SIZE, choose, row, select, status, text_of
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e
CHILD = "Interrupted, still burning CPU"


def screen_text(app: SupervisorApp) -> str:
    return " ".join(text_of(w) for w in app.screen.query(Static))


async def test_i_on_a_runaway_offers_the_forced_stop_which_ends_its_processes() -> None:
    sleep = 600 + 59.25  # a sleep length no other test uses: its processes are found by it
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
                child = await select(pilot, CHILD)
                assert child.active_run_id is None and child.run_status == "interrupted"
                detail = app.query_one(DetailPane)
                await until(lambda: "forced stop" in text_of(detail),
                            what="the remedy in the detail pane")
                assert app.actions.why_not("interrupt") is None

                await pilot.press("i")
                await until(lambda: isinstance(app.screen, ConfirmScreen), what="a confirmation")
                said = screen_text(app)
                assert "other threads sharing that session lose it too" in said, said
                await choose(pilot, "Force stop")
                forced = await until(lambda: status(app, child.id, "interrupt"), timeout=30,
                                     what="the forced stop's outcome")
                assert forced.phase == "ok" and "force-stopped" in forced.text, forced.text
                await wait_until(lambda: not any(pid_alive(pid) for pid in agents),
                                 timeout=15, what="the runaway's processes end")
                await until(lambda: (r := row(app, CHILD)) and "runaway" not in r.overlays,
                            timeout=15, what="the runaway flag cleared")
        finally:
            for pid in agents:  # never leave a sleeper behind, whatever failed
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)
