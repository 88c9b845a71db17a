"""`I` (stop the tree) on a parent whose delegated child is a runaway (T3 #5587: its run
ended interrupted, its provider runs on): the confirmation names the runaway's forced stop
and its warning, the stop ends the child's processes and the summary names it. The real app,
Pilot, the reference backend's `runaway-provider` scenario with real agent processes."""

from __future__ import annotations

import pytest

from t3tui.backend.testing import pid_alive, wait_until
from t3tui.tui.screens.modals import ConfirmScreen
from tests.runaway import CHILD, PARENT_TITLE, sleeping_agents
from tests.tui.runaway import app_on_runaway, screen_text
from tests.tui.test_live import choose, row, select, status
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


async def test_stop_the_tree_on_a_runaways_parent_force_stops_the_runaway() -> None:
    sleep = 600 + 29.25  # a sleep length no other test uses: its processes are found by it
    async with sleeping_agents(sleep) as (backend, agents), \
            app_on_runaway(backend) as (app, pilot):
        parent = await select(pilot, PARENT_TITLE)
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
