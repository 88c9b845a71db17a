"""The live demo tells its own story: the app on the reference backend's demo scenario (real
websockets, real agent processes, the demo's own timings), and nobody presses a key. Within
90 s it shows a stuck child (the demo settled its parent and checked in on it by itself, and
says so in the status bar), a settled parent, a serialized pair and a thread that needs input;
and no screen it shows by default prints a raw `%3A` wire id."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from t3tui.backend.testing import running_backend
from t3tui.client.secret import Secret, Target
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.panes import DetailPane, StatusBar, TimelineView
from t3tui.tui.widgets.thread_tree import ThreadTree, TreeHeader
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e

SIZE = (160, 48)


def seen(app: SupervisorApp) -> set[str]:
    """What a triager can see on the tree now: states and finding kinds."""
    view = app.view
    if view is None:
        return set()
    found = {r.state for r in view.rows}
    found |= {f.kind for r in view.rows for f in r.findings}
    return found


def screen_text(app: SupervisorApp) -> str:
    """Every piece of text on the main screen, as rendered."""
    tree = app.query_one(ThreadTree)
    parts = [node.label.plain for node in tree.nodes.values()]
    parts += [str(app.query_one(w).render())
              for w in (TreeHeader, DetailPane, TimelineView, StatusBar)]
    return "\n".join(parts)


async def test_the_demo_reaches_every_story_with_no_key_press() -> None:
    async with running_backend(scenario="demo", scenario_in_background=True) as backend:
        source = LiveSource(Target(backend.url, Secret(backend.token)))
        app = SupervisorApp(source, config=TuiConfig(bell=False), autopilot=True)
        async with app.run_test(size=SIZE) as pilot:
            wanted = {"stuck", "settled", "serialized_wait", "needs-input"}
            await until(lambda: wanted <= seen(app), timeout=90,
                        what=f"{wanted} on the tree (seen: {sorted(seen(app))})")
            status = str(app.query_one(StatusBar).render())
            assert app.demo_note.startswith(
                "demo: settled “Settled by the demo (seed 004)” and checked in")
            # the long note does not fit this line: its short form is told whole
            assert "demo: checked in on “Checked in after…”: it turns stuck" in status
            stuck = next(r for r in app.view.rows if r.state == "stuck")
            assert stuck.title == "Checked in after the settle"
            assert app.view.row(stuck.parent_id).state == "settled"
            # the story is told: its note goes after a while (here: at once), nobody pressing
            app.demo_linger_s = 0.0
            await until(lambda: app.demo_note == "", timeout=10, what="the demo's note gone")
            assert "demo:" not in str(app.query_one(StatusBar).render())

            await no_raw_ids_on_the_default_screens(pilot, app)


async def no_raw_ids_on_the_default_screens(pilot: Any, app: SupervisorApp) -> None:
    """Select every row in turn and scan the screen; then a transcript with T3's own
    "Delegated task … reached a terminal state" messages."""
    tree = app.query_one(ThreadTree)
    for thread_id in list(tree.nodes):
        assert tree.select_thread(thread_id)
        await pilot.pause()
        app.refresh_view()
        await pilot.pause()
        text = screen_text(app)
        assert "%3A" not in text, f"a raw id on screen with {thread_id} selected:\n{text}"
    fanout = next(r for r in app.view.rows if r.title == "Fan out the checks")
    tree.select_thread(fanout.id)
    await pilot.pause()
    await pilot.press("enter")
    await until(lambda: isinstance(app.screen, TranscriptScreen), what="the transcript")
    body = await until(
        lambda: "reached a terminal state" in (t := str(app.screen.query_one(
            "#transcript-body", Static).render())) and t, what="T3's delegated-task message")
    assert "%3A" not in body
    assert "Delegated task “Type check” (demo-typecheck) reached a terminal state" in body
    # the raw id is one key away
    await pilot.press("v")
    await until(lambda: "%3Ademo-typecheck" in str(
        app.screen.query_one("#transcript-body", Static).render()), what="raw ids")
    await pilot.press("v", "escape")
