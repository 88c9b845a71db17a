"""The app's forced stop of a runaway provider, refused by the server: its toast is the
server's refusal and nothing else, never a detach. The real app, Pilot, the reference
backend's `runaway-provider` scenario with real agent processes; another client's detach of
the same session lands first, so the backend refuses t3tui's (`tests/headless/
test_force_refused_e2e.py` does the same to the CLI)."""

from __future__ import annotations

import pytest

from tests.headless.test_force_refused_e2e import another_client_detaches_first
from tests.runaway import CHILD, sleeping_agents
from tests.tui.runaway import app_on_runaway
from tests.tui.test_live import choose, select, status
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


async def test_a_refused_forced_stop_of_a_runaway_toasts_the_refusal_alone() -> None:
    sleep = 600 + 43.25  # a sleep length no other test uses: its processes are found by it
    async with sleeping_agents(sleep) as (backend, _), \
            app_on_runaway(backend, confirm_timeout_s=5.0, notifications=True) as (app, pilot):
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
