"""The one line a cut transcript shows when its older messages cannot be shown: a source
that cannot read them (recorded frames) says so instead of silently showing a cut one."""

from __future__ import annotations

from textual.widgets import Static

from t3tui.model.environments import qualify
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.screens.transcript import TranscriptScreen, older_note
from t3tui.tui.screenshots import NOW, environments_app
from t3tui.tui.sources import transcripts
from t3tui.tui.sources.frames import FrameSource, load_frames
from t3tui.tui.widgets.env_tree import EnvThreadTree
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.showcase_frames import FO
from tests.tui.test_live import SIZE, text_of
from tests.tui.waiting import until


def test_the_note_counts_what_is_not_held() -> None:
    assert older_note(0, "loading them…") is None  # nothing let go: no note
    assert older_note(3, None) is None  # read: no note
    assert older_note(1, "loading them…") == "1 older message is not held; loading them…"
    assert older_note(2, "x") == "2 older messages are not held; x"


async def test_a_source_that_cannot_read_older_messages_says_so(monkeypatch) -> None:
    monkeypatch.setattr(transcripts, "MAX_MESSAGES", 1)
    source = FrameSource(load_frames("showcase"))
    app = SupervisorApp(source, config=TuiConfig(bell=False), clock=lambda: NOW, tick=None)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.view and app.view.rows, what="the tree")
        assert source.transcripts.get(FO).dropped == 2
        assert app.query_one(ThreadTree).select_thread(FO)
        await pilot.pause()
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, TranscriptScreen))
        body = app.screen.query_one("#transcript-body", Static)
        await until(lambda: "not held" in text_of(body), what="the note")
        shown = text_of(body)
        assert shown.startswith("2 older messages are not held; this source cannot read them")
        assert "Split the release" not in shown  # the oldest: cut, and said so


async def test_an_environment_that_cannot_read_older_messages_says_which(monkeypatch) -> None:
    monkeypatch.setattr(transcripts, "MAX_MESSAGES", 1)
    app = environments_app()  # two environments of recorded frames
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.view and app.view.rows, what="the tree")
        qualified = qualify("devbox", FO)
        dropped = app.source.transcripts.get(qualified).dropped
        assert dropped >= 1
        assert app.query_one(EnvThreadTree).select_thread(qualified)
        await pilot.pause()
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, TranscriptScreen))
        body = app.screen.query_one("#transcript-body", Static)
        await until(lambda: "not held" in text_of(body), what="the note")
        assert text_of(body).startswith(
            f"{dropped} older message{'s are' if dropped > 1 else ' is'} not held; "
            "the devbox environment cannot read them")
