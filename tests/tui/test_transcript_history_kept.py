"""The older messages of a long transcript are read from the server once per session, not at
every opening: opening the same transcript again (and again) showed them after another
`getThreadProjection` of the whole thread each time. Kept for the last few threads opened
(`transcripts.HistoryCache`); read again when the transcript let go of messages the kept read
does not reach."""

from __future__ import annotations

from typing import Any

import pytest

from t3tui.backend.testing import running_backend
from t3tui.tui.sources import source as source_module
from t3tui.tui.sources import transcripts
from tests.tui.long_talk import long_talk, open_transcript
from tests.tui.test_live import SIZE, live_app, select, text_of
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


async def test_the_older_messages_are_read_once_for_every_opening(monkeypatch) -> None:
    monkeypatch.setattr(transcripts, "MAX_MESSAGES", 2)
    reads: list[str] = []
    fetch = source_module.fetch_projection

    async def counted(session: Any, thread_id: str) -> Any:  # the real read, counted
        reads.append(thread_id)
        return await fetch(session, thread_id)

    monkeypatch.setattr(source_module, "fetch_projection", counted)
    async with running_backend() as backend:
        thread = await long_talk(backend)
        app = live_app(backend.url, backend.token)
        async with app.run_test(size=SIZE) as pilot:
            await select(pilot, "A long talk")
            await until(lambda: app.source.transcripts.get(thread).dropped,
                        what="the first exchange let go")
            for _ in range(3):
                body = await open_transcript(pilot)
                await until(lambda b=body: "Reply FIRSTWORD" in text_of(b), timeout=15,
                            what="the older messages")
                shown = text_of(body)
                assert shown.index("Reply FIRSTWORD") < shown.index("Reply LASTWORD")
                await pilot.press("escape")
                await until(lambda: app.screen is app.main_screen)
            assert reads.count(thread) == 1, reads
            # the talk goes on while closed: the messages let go since are not in the kept
            # read, so the next opening reads again
            runs = len(backend.engine.projection(thread).runs)
            await backend.engine.dispatch({
                "type": "message.dispatch", "commandId": "c-more", "createdBy": "user",
                "creationSource": "web", "threadId": thread, "messageId": "m-more",
                "text": "Reply MOREWORD", "attachments": [],
                "dispatchMode": {"type": "start_immediately"}})
            await until(lambda: any(m.text == "MOREWORD" for m in
                                    app.source.transcripts.get(thread).messages.values()),
                        what="the third exchange held")
            assert len(backend.engine.projection(thread).runs) > runs
            body = await open_transcript(pilot)
            await until(lambda: "Reply LASTWORD" in text_of(body), timeout=15,
                        what="the messages let go since, read again")
            shown = text_of(body)
            assert shown.index("Reply FIRSTWORD") < shown.index("Reply LASTWORD") \
                < shown.index("Reply MOREWORD")
    assert reads.count(thread) == 2, reads
