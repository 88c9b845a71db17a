"""A long thread's transcript: the app holds its latest messages; opening the transcript
loads the older ones from the server (`getThreadProjection`) for as long as it is open."""

from __future__ import annotations

import pytest

from t3tui.backend.testing import running_backend
from t3tui.tui.sources import transcripts
from tests.tui.long_talk import first_exchange, long_talk, open_transcript, reply
from tests.tui.test_live import SIZE, live_app, select, text_of
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


async def test_a_long_transcript_loads_its_older_messages_when_opened(monkeypatch) -> None:
    monkeypatch.setattr(transcripts, "MAX_MESSAGES", 2)
    async with running_backend() as backend:
        thread = await long_talk(backend)
        app = live_app(backend.url, backend.token)
        async with app.run_test(size=SIZE) as pilot:
            await select(pilot, "A long talk")
            held = await until(lambda: (t := app.source.transcripts.get(thread)).messages
                               and t, what="the thread's transcript")
            assert len(held.messages) == 2  # the bound: the first exchange is not held
            body = await open_transcript(pilot)
            await until(lambda: "Reply FIRSTWORD" in text_of(body), timeout=15,
                        what="the older messages, loaded from the server")
            shown = text_of(body)
            assert shown.index("Reply FIRSTWORD") < shown.index("Reply LASTWORD")
            await pilot.press("escape")
            await until(lambda: app.screen is app.main_screen)
            # closed: the older messages are let go again
            assert len(app.source.transcripts.get(thread).messages) == 2


async def test_a_transcript_that_grows_long_while_open_keeps_its_first_messages(
        monkeypatch) -> None:
    monkeypatch.setattr(transcripts, "MAX_MESSAGES", 2)
    async with running_backend() as backend:
        thread = await first_exchange(backend)
        app = live_app(backend.url, backend.token)
        async with app.run_test(size=SIZE) as pilot:
            await select(pilot, "A long talk")
            body = await open_transcript(pilot)
            await until(lambda: "FIRSTWORD" in text_of(body), what="the short transcript")
            assert not app.source.transcripts.get(thread).dropped  # all held when opened
            await reply(backend, thread, "LASTWORD")
            await until(lambda: app.source.transcripts.get(thread).dropped == 2,
                        what="the first exchange let go while the transcript is open")
            await until(lambda: "Reply FIRSTWORD" in text_of(body)
                        and "LASTWORD" in text_of(body).split("Reply LASTWORD")[-1],
                        timeout=15, what="the whole talk, the first exchange read again")
            shown = text_of(body)
            assert shown.index("Reply FIRSTWORD") < shown.index("Reply LASTWORD")
