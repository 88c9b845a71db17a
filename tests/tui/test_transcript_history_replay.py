"""A long thread's transcript in replay (`--replay FILE`): the older messages come from the
recording itself, as recorded up to the replay's moment and never beyond it; they are read
when the transcript opens and let go when it closes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Static

from t3tui.backend.testing import RunningBackend, running_backend, wait_until
from t3tui.client.backoff import Backoff
from t3tui.client.recording import read_recording
from t3tui.client.secret import Secret, Target
from t3tui.client.state import Live
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.sources import transcripts
from t3tui.tui.sources.replay import ReplaySource
from t3tui.tui.sources.source import LiveSource
from tests.tui.long_talk import first_exchange, open_transcript
from tests.tui.test_live import SIZE, select, text_of
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


async def _ask(backend: RunningBackend, thread: str, word: str) -> None:
    runs = len(backend.engine.projection(thread).runs)
    await backend.engine.dispatch({
        "type": "message.dispatch", "commandId": f"c-{word}", "createdBy": "user",
        "creationSource": "web", "threadId": thread, "messageId": f"m-{word}",
        "text": f"Reply {word}", "attachments": [],
        "dispatchMode": {"type": "start_immediately"},
    })
    await wait_until(lambda: len(backend.engine.projection(thread).runs) > runs
                     and backend.engine.shell_row(thread).status == "completed", timeout=15)


async def _record_long_talk(path: Path, between: int = 0) -> str:
    """A recording of a thread: FIRSTWORD asked and answered (the thread's snapshot), then
    `between` more exchanges and LASTWORD (its events)."""
    async with running_backend() as backend:
        thread = await first_exchange(backend)
        source = LiveSource(Target(backend.url, Secret(backend.token)), backoff=Backoff.fast())
        recorder = source.record_to(str(path))
        runner = asyncio.create_task(source.run())
        try:
            await wait_until(lambda: isinstance(source.state.value, Live), timeout=15)
            source.open_thread(thread)
            await wait_until(lambda: source.transcripts.get(thread).messages, timeout=15)
            for word in [f"MIDDLE{n:02d}" for n in range(between)] + ["LASTWORD"]:
                await _ask(backend, thread, word)
            await wait_until(lambda: any(m.text == "LASTWORD" and not m.streaming for m in
                                         source.transcripts.get(thread).messages.values()),
                             timeout=15, what="the reply, recorded")
        finally:
            await source.stop()
            await runner
            recorder.close()
    return thread


def _texts(messages: dict[str, transcripts.MessageLine]) -> list[str]:
    return [m.text for m in sorted(messages.values(), key=lambda m: (m.created_at, m.id))]


async def test_replay_history_is_the_recording_up_to_the_replay_moment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transcripts, "MAX_MESSAGES", 2)
    path = tmp_path / "long.ndjson.gz"
    thread = await _record_long_talk(path)
    recording = read_recording(path)
    source = ReplaySource(recording)
    source.seek(source.end)
    assert len(source.transcripts.get(thread).messages) == 2  # the bound holds in replay
    at_end = await source.history(thread)
    assert _texts(at_end) == ["Reply FIRSTWORD", "FIRSTWORD", "Reply LASTWORD", "LASTWORD"]
    # a moment before LASTWORD was asked: its history holds nothing from after it
    asked = next(i for i, line in enumerate(recording.lines) if b"Reply LASTWORD" in line)
    source.seek(recording.times[asked] - 0.0005)
    assert _texts(await source.history(thread)) == ["Reply FIRSTWORD", "FIRSTWORD"]
    # nor does a transcript opened at the end and sent back there show its future
    back = source.transcripts.get(thread)
    assert _texts(back.with_older(at_end).messages) == ["Reply FIRSTWORD", "FIRSTWORD"]


async def test_a_long_transcript_in_replay_shows_its_first_messages(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transcripts, "MAX_MESSAGES", 2)
    path = tmp_path / "long.ndjson.gz"
    thread = await _record_long_talk(path)
    source = ReplaySource(read_recording(path))
    app = SupervisorApp(source, config=TuiConfig(bell=False, toast=False), clock=source.clock)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: source.opened, what="the replay opened")
        source.seek(source.end)
        app.refresh_view()
        await select(pilot, "A long talk")
        assert source.transcripts.get(thread).dropped == 2
        body = await open_transcript(pilot)
        await until(lambda: "Reply FIRSTWORD" in text_of(body), timeout=15,
                    what="the older messages, read from the recording")
        shown = text_of(body)
        assert shown.index("Reply FIRSTWORD") < shown.index("Reply LASTWORD")
        assert "not held" not in shown
        await pilot.press("escape")
        await until(lambda: app.screen is app.main_screen)
        assert len(source.transcripts.get(thread).messages) == 2  # let go again


async def test_the_transcript_follows_its_end_while_the_older_messages_come_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opened, the transcript asks to scroll to its end; Textual does it after a refresh. By
    hand (a recording of 460 messages) the older ones came in between the layout and that
    scroll: the view was not at its end yet, so it stopped following and was left in the
    middle. The scroll to the end is held back here to make that moment last."""
    monkeypatch.setattr(transcripts, "MAX_MESSAGES", 20)  # taller than the screen
    path = tmp_path / "long.ndjson.gz"
    thread = await _record_long_talk(path, between=12)  # 28 messages
    source = ReplaySource(read_recording(path))
    app = SupervisorApp(source, config=TuiConfig(bell=False, toast=False), clock=source.clock)
    asked: list[bool] = []  # each scroll to the end asked of the transcript: older ones in?
    original = VerticalScroll.scroll_end

    def held_back(self: VerticalScroll, *args: Any, **kwargs: Any) -> None:
        if self.id != "transcript-scroll":
            original(self, *args, **kwargs)
            return
        body = self.query_one("#transcript-body", Static)
        asked.append("Reply FIRSTWORD" in text_of(body))

    monkeypatch.setattr(VerticalScroll, "scroll_end", held_back)
    read = source.history

    async def read_late(thread_id: str) -> dict[str, transcripts.MessageLine]:
        """The older messages, once the latest are laid out and their scroll is asked."""
        older = await read(thread_id)
        scroll = app.screen.query_one("#transcript-scroll", VerticalScroll)
        await until(lambda: asked and scroll.max_scroll_y > 0, what="the first layout")
        return older

    monkeypatch.setattr(source, "history", read_late)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: source.opened, what="the replay opened")
        source.seek(source.end)
        app.refresh_view()
        await select(pilot, "A long talk")
        assert source.transcripts.get(thread).dropped == 8
        body = await open_transcript(pilot)
        await until(lambda: "Reply FIRSTWORD" in text_of(body), timeout=15,
                    what="the older messages, read from the recording")
        await pilot.pause()
        assert asked[:1] == [False]  # opened: to the end of the latest messages
        assert True in asked, "the older messages came in and the end was let go"
