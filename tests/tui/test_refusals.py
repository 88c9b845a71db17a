"""Every key that does not apply says why, in the app's own terms (issue 21, item 7): a
dimmed key, a palette entry, the replay-only keys in a live session, the sending keys in a
replay; and a replay's status line does not say "live"."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from t3tui.client.recording import read_recording
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.screenshots import ORCHESTRATOR, settled, showcase_app
from t3tui.tui.sources.replay import ReplaySource
from t3tui.tui.widgets.panes import StatusBar
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.triage import foreign
from tests.tui.waiting import until

SIZE = (160, 48)


def said(app: SupervisorApp, title: str) -> list[str]:
    return [n.message for n in app._notifications if n.title == title]


async def test_a_dimmed_key_says_why_it_does_not_apply() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert app.query_one(ThreadTree).select_thread(ORCHESTRATOR)
        await pilot.pause()
        assert app.check_action("forward", ()) is None  # dimmed in the footer
        await pilot.press("F")
        await until(lambda: said(app, "Forward"), what="a word on F")
        assert said(app, "Forward") == [
            "Orchestrator is not a delegated child: there is no result to forward"]


async def test_forward_of_a_delivered_result_speaks_of_the_app_not_a_flag() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert app.view is not None
        child = next(r for r in app.view.rows if r.title == "Tests")
        assert child.task is not None and child.task.delivery == "delivered"
        delivered = replace(child, task=replace(child.task, result="all green"))
        app.current_row = lambda: delivered  # type: ignore[method-assign]
        reason = app.why_not("forward") or ""
        assert "already delivered" in reason
        assert "--" not in reason and "message" in reason


async def test_go_to_in_a_live_session_says_there_is_nothing_to_replay() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        app.run_from_palette("replay_seek")
        await until(lambda: said(app, "Go to"), what="a word from the palette")
        assert "live" in said(app, "Go to")[0]
        app.clear_notifications()
        await pilot.press("g")  # the key as well, though the footer does not show it
        await until(lambda: said(app, "Go to"), what="a word on g")
        assert "live" in said(app, "Go to")[0]


async def test_a_replay_hides_every_sending_key_and_is_not_called_live(tmp_path: Path) -> None:
    source = ReplaySource(read_recording(foreign.write(tmp_path / "nightly.ndjson.gz")))
    app = SupervisorApp(source, config=TuiConfig(bell=False), clock=source.clock)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.view and app.view.rows, what="first tree")
        assert app.query_one(ThreadTree).select_thread(foreign.CHILD)
        await pilot.pause()
        for action in ("forward", "stop_tree", "dispose", "acknowledge"):
            assert app.check_action(action, ()) is False, action
            assert "read-only" in (app.why_not(action) or ""), action
        await pilot.press("F")
        await until(lambda: said(app, "Forward"), what="a word on F")
        assert "read-only" in said(app, "Forward")[0]
        source.seek(source.start + timedelta(seconds=21).total_seconds())
        app.refresh_view()
        await pilot.pause()
        line = str(app.query_one(StatusBar).render())
        assert "replay" in line and not line.startswith("● live"), line
