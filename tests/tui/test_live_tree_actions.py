"""The second-wave actions in the real app (Pilot), on the reference backend over real
websockets: stop a subtree, forward a result after a confirmation showing the exact text,
dispose a delivery with the server's refusal verbatim, and the new states on screen."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from t3tui.backend.testing import running_backend
from t3tui.model.forwarding import forward_text
from tests.tui.test_live import SIZE, choose, live_app, row, select, status
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


async def test_stop_tree_from_the_palette_key_stops_children_first_then_the_parent() -> None:
    async with running_backend(scenario="duplicate-delegation") as backend:
        app = live_app(backend.url, backend.token)
        async with app.run_test(size=SIZE) as pilot:
            parent = await until(lambda: (p := row(app, "Audit, delegated twice")) and p.children
                                 and p.active_run_id and p, timeout=20, what="the parent waiting")
            await select(pilot, "Audit, delegated twice")
            await pilot.press("I")
            body = str(app.screen.query_one("#dialog-body", Static).render())
            assert body.index("Audit the repo") < body.index("Audit, delegated twice")
            await choose(pilot, "Stop 2")
            done = await until(lambda: status(app, parent.id, "stop_tree"), timeout=30,
                               what="the subtree stop")
            assert done.phase == "ok" and done.text.startswith("stopped 2 of 2"), done.text
            assert row(app, "Audit, delegated twice").active_run_id is None
            # the twins are another subtree: untouched
            twins = row(app, "Two audits on purpose")
            assert len(twins.children) == 2
            assert all(app.view.row(kid).active_run_id for kid in twins.children)


async def test_forward_shows_the_exact_text_then_sends_it_and_dispose_shows_the_refusal() -> None:
    async with running_backend(scenario="pending-delivery", scenario_params={"step": 2}) as backend:
        app = live_app(backend.url, backend.token)
        async with app.run_test(size=SIZE) as pilot:
            wave = await until(lambda: (r := row(app, "Wave three")) and r.task
                               and r.task.delivery == "pending" and r.task.result and r,
                               timeout=30, what="wave three pending")
            await select(pilot, "Wave three")
            await pilot.press("F")
            body = str(app.screen.query_one("#dialog-body", Static).render())
            text = forward_text(wave)
            assert body.endswith(text) and "> WAVE_THREE: 17 files checked" in body
            await choose(pilot, "Send")
            parent_id = wave.task.parent_thread_id
            sent = await until(lambda: status(app, parent_id, "message"), timeout=20,
                               what="the forward")
            assert sent.phase == "ok", sent.text
            assert any(m.text == text for m in backend.engine.projection(parent_id).messages)
            # still pending on the wire, but the parent's messages carry it: F does not apply
            await select(pilot, "Wave three")
            again = await until(lambda: (r := app.why_not("forward")) and "already" in r and r,
                                what="the forward key dimmed")
            assert again.startswith("Wave three's result was already forwarded to its parent at ")
            assert again.endswith(" UTC; to tell it again, send the parent a message of your own")
            assert app.check_action("forward", ()) is None

            await select(pilot, "Wave one")  # read by its parent already: the server says no
            await pilot.press("d")
            await choose(pilot, "Dispose")
            refused = await until(lambda: status(app, row(app, "Wave one").id, "dispose"),
                                  what="the dispose outcome")
            assert refused.phase == "failed"
            assert refused.text.startswith("server refused: Task node:delegated-task:")
            assert refused.text.endswith("completion delivery is already acknowledged.")


async def test_a_stopped_parent_reads_orphaned_on_screen() -> None:
    async with running_backend(scenario="orphaned-children") as backend:
        app = live_app(backend.url, backend.token)
        async with app.run_test(size=SIZE) as pilot:
            parent = await until(lambda: (p := row(app, "Stopped parent, children run on"))
                                 and p.state == "orphaned" and p, timeout=20,
                                 what="the stopped parent orphaned")
            await select(pilot, parent.title)
            assert "children orphaned" in parent.state_reason
