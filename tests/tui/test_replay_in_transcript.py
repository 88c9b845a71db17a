"""The replay keys work while a transcript is open (`--replay FILE`), and the transcript shows
where the replay stands: found by hand, `r`, `]`, `n` did nothing over a transcript (the keys
were on the main screen only), so reading one while it played meant going back and forth."""

from __future__ import annotations

from pathlib import Path

import pytest

from t3tui.client.recording import read_recording
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.sources.replay import ReplaySource
from t3tui.tui.widgets.replay_bar import ReplayBar
from tests.tui.test_live import SIZE, select, text_of
from tests.tui.test_transcript_history_replay import _record_long_talk
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


async def test_the_replay_keys_work_over_an_open_transcript(tmp_path: Path) -> None:
    path = tmp_path / "talk.ndjson.gz"
    await _record_long_talk(path)
    source = ReplaySource(read_recording(path))
    app = SupervisorApp(source, config=TuiConfig(bell=False, toast=False), clock=source.clock)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: source.opened, what="the replay opened")
        await select(pilot, "A long talk")
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, TranscriptScreen), what="the transcript")
        transcript = app.screen
        index = source.replay.index
        await pilot.press("n")  # on to the next recorded event
        await until(lambda: source.replay.index > index, what="a step")
        bar = await until(lambda: next(iter(transcript.query(ReplayBar)), None),
                          what="the replay bar on the transcript")
        toggled: list[bool] = []  # the recording may play to its end before a look
        toggle = source.toggle
        source.toggle = lambda: toggled.append(toggle()) or toggled[-1]  # type: ignore
        await pilot.press("r")
        await until(lambda: toggled == [True], what="playing")
        await until(lambda: "playing" in text_of(bar) or not source.playing,
                    what="the bar saying so")
        await pilot.press("r")
        await until(lambda: len(toggled) == 2, what="play or pause again")
        await pilot.press("right_square_bracket")
        await until(lambda: source.speed == 10, what="x10")
        await until(lambda: "x10" in text_of(bar), what="the bar saying x10")
        assert app.screen is transcript  # the keys did not close it
