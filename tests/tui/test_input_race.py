"""Keys meant for an input never reach an action (issue 21, item 1).

Every path that shows an input (the `/` filter, the message and answer prompts, replay's go
to) gets its keys in one burst (`tests/tui/burst.py`): the keys typed right after the key
that opens the input must land in it, whether the input is ready yet or not.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from t3tui.backend.testing import RunningBackend, running_backend
from t3tui.client.backoff import Backoff
from t3tui.client.recording import read_recording
from t3tui.client.secret import Secret, Target
from t3tui.client.state import Live
from t3tui.model import DetectorConfig
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.screens.modals import PromptScreen
from t3tui.tui.screenshots import NOW, ORCHESTRATOR, settled, showcase_app
from t3tui.tui.sources.frames import FrameSource
from t3tui.tui.sources.replay import ReplaySource
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.triage import foreign
from tests.tui.burst import burst
from tests.tui.question import SCRATCH, question_frames
from tests.tui.waiting import until

SIZE = (160, 48)
DEMO_PARAMS = {"short": 2, "timeoutMs": 2000, "sleep": 4, "ticks": 900}


@pytest.fixture
async def demo() -> AsyncIterator[RunningBackend]:
    async with running_backend(scenario="demo", scenario_params=DEMO_PARAMS) as backend:
        yield backend


def spy_on_commands(backend: RunningBackend, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every command a client sends from now on (the demo's own steps have run)."""
    sent: list[Any] = []
    real = backend.engine.dispatch

    async def dispatch(command: Any) -> int:
        sent.append(command)
        return await real(command)

    monkeypatch.setattr(backend.engine, "dispatch", dispatch)
    return sent


def filter_box(app: SupervisorApp) -> Input:
    return app.main_screen.query_one("#filter", Input)


def warnings(app: SupervisorApp, title: str) -> list[str]:
    return [n.message for n in app._notifications if n.title == title]


@pytest.mark.e2e
async def test_a_burst_after_clearing_the_filter_types_into_it_and_sends_nothing(
        demo: RunningBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    # The issue: `/review` enter, then `0/` and `&stuck` in one burst. `0` handed the focus
    # to the tree "later", after `/` had given it to the filter: the letters went to the tree
    # (`s` settle, `c` check-in) under a filter bar that looked open.
    sent = spy_on_commands(demo, monkeypatch)
    source = LiveSource(Target(demo.url, Secret(demo.token)),
                        config=DetectorConfig(), backoff=Backoff.fast(), ping_interval=1.0)
    app = SupervisorApp(source, config=TuiConfig(bell=False))
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: isinstance(app.conn, Live) and app.view and any(
            r.title == "Two reviews, waited on" for r in app.view.rows), timeout=30,
            what="the demo's tree, live")
        await pilot.press("slash", *"review", "enter")
        tree = app.query_one(ThreadTree)
        await until(lambda: app.focused is tree and tree.selected_id, what="a review selected")
        # the selected thread takes a check-in: a `c` that leaked would send one
        assert app.why_not("checkin") is None

        await burst(pilot, "0", "slash", *"&stuck")
        box = filter_box(app)
        await until(lambda: box.value == "&stuck" or app.statuses or sent,
                    what="the burst typed into the filter (or acted)")
        assert sent == [] and app.statuses == {}
        assert box.value == "&stuck" and app.focused is box
        assert app.screen is app.main_screen
        # and what the footer offers is the filter's, not the tree's keys
        assert app.check_action("settle", ()) is False
        assert app.check_action("checkin", ()) is False

        # enter applies it; `/` and a bad state in one burst: the line keeps the focus
        await burst(pilot, "enter", "slash", *" state:bogus", "enter")
        await until(lambda: warnings(app, "filter"), what="the filter's warning")
        assert box.value == "&stuck state:bogus" and app.focused is box
        assert sent == [] and app.statuses == {}


def question_app() -> tuple[SupervisorApp, str]:
    """The showcase plus a thread that asks the user a question (a form to answer)."""
    scratch = SCRATCH
    frames = question_frames()
    app = SupervisorApp(FrameSource(frames), config=TuiConfig(bell=False), clock=lambda: NOW,
                        tick=None)
    return app, scratch


def prompt_values(app: SupervisorApp) -> list[str]:
    return [i.value for i in app.screen.query(Input)]


async def test_a_burst_after_m_lands_in_the_message_prompt() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert app.query_one(ThreadTree).select_thread(ORCHESTRATOR)
        await pilot.pause()
        await burst(pilot, "m", *"sync now")
        await until(lambda: isinstance(app.screen, PromptScreen), what="the message prompt")
        await until(lambda: prompt_values(app) == ["sync now"] or app.statuses,
                    what="the burst handled")
        assert prompt_values(app) == ["sync now"] and app.statuses == {}


async def test_a_burst_after_a_lands_in_the_answer_form() -> None:
    app, scratch = question_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert app.query_one(ThreadTree).select_thread(scratch)
        await pilot.pause()
        await burst(pilot, "a", *"dev")
        await until(lambda: isinstance(app.screen, PromptScreen), what="the answer form")
        await until(lambda: prompt_values(app) == ["dev"] or app.statuses,
                    what="the burst handled")
        assert prompt_values(app) == ["dev"] and app.statuses == {}


async def test_a_burst_after_g_goes_to_the_typed_moment_of_a_replay(tmp_path: Path) -> None:
    source = ReplaySource(read_recording(foreign.write(tmp_path / "nightly.ndjson.gz")))
    app = SupervisorApp(source, config=TuiConfig(bell=False, toast=False), clock=source.clock)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.view and app.view.rows, what="first tree")
        await burst(pilot, "g", *"+21", "enter")
        target = foreign.T0 + timedelta(seconds=21)
        await until(lambda: source.clock() == target, what="the replay at +21 s")
        assert app.screen is app.main_screen


async def test_a_bad_state_is_no_text_filter_and_enter_names_the_states() -> None:
    # `state:bogus` filtered the tree by the text "state" (the last text that parsed) and
    # said nothing until enter, in other words
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("slash", *"state:bogus")
        await until(lambda: "-invalid" in filter_box(app).classes, what="the line marked")
        assert app.row_filter.words == () and not app.row_filter.active
        await pilot.press("enter")
        await until(lambda: warnings(app, "filter"), what="the filter's warning")
        (said,) = warnings(app, "filter")
        assert said.startswith("no such state 'bogus'")
        assert all(state in said for state in ("running", "needs-input", "stuck", "idle"))
        assert app.focused is filter_box(app)


async def test_escape_closes_an_empty_filter_line() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("slash")
        assert app.focused is filter_box(app)
        await pilot.press("escape")
        await until(lambda: "-hidden" in filter_box(app).classes, what="the line closed")
        assert app.focused is app.query_one(ThreadTree)
