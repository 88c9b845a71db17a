"""`i` on a runaway-flagged thread (T3 #5587: its run ended `interrupted`, its provider runs
on) offers the forced stop at once, with its warning; the detail pane names it as the remedy.
The real app, Pilot, the reference backend's `runaway-provider` scenario with real agent
processes: the forced stop ends them and the flag clears from the stream."""

from __future__ import annotations

import pytest

from t3tui.backend.testing import pid_alive, wait_until
from t3tui.tui.screens.modals import ConfirmScreen
from t3tui.tui.widgets.panes import DetailPane
from tests.runaway import CHILD, sleeping_agents
from tests.tui.runaway import app_on_runaway, screen_text
from tests.tui.test_live import choose, row, select, status, text_of
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


async def test_i_on_a_runaway_offers_the_forced_stop_which_ends_its_processes() -> None:
    sleep = 600 + 59.25  # a sleep length no other test uses: its processes are found by it
    async with sleeping_agents(sleep) as (backend, agents), \
            app_on_runaway(backend) as (app, pilot):
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
