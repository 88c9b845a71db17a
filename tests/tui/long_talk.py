"""A long thread on the reference backend and its transcript opened in the app: what the
transcript history tests (a bound of a few messages held) start from."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from t3tui.backend.testing import RunningBackend, wait_until
from t3tui.tui.screens.transcript import TranscriptScreen
from tests.headless.test_commands_e2e import launch
from tests.tui.waiting import until

TITLE = "A long talk"


async def first_exchange(backend: RunningBackend) -> str:
    """A thread asked `Reply FIRSTWORD`, once its run completed; its id."""
    thread = await launch(backend, "Reply FIRSTWORD", title=TITLE)
    await wait_until(lambda: backend.engine.shell_row(thread).status == "completed",
                     timeout=15)
    return thread


async def reply(backend: RunningBackend, thread: str, word: str) -> None:
    """`thread` asked `Reply {word}` again, once that run completed."""
    await backend.engine.dispatch({
        "type": "message.dispatch", "commandId": f"c-{word}", "createdBy": "user",
        "creationSource": "web", "threadId": thread, "messageId": f"m-{word}",
        "text": f"Reply {word}", "attachments": [],
        "dispatchMode": {"type": "start_immediately"},
    })
    await wait_until(lambda: len(backend.engine.projection(thread).runs) >= 2
                     and backend.engine.shell_row(thread).status == "completed", timeout=15)


async def long_talk(backend: RunningBackend) -> str:
    """A thread of two exchanges, FIRSTWORD then LASTWORD, both completed; its id."""
    thread = await first_exchange(backend)
    await reply(backend, thread, "LASTWORD")
    return thread


async def open_transcript(pilot: Any) -> Static:
    """`enter` on the selected row; the transcript screen's body once it is up."""
    await pilot.press("enter")
    await until(lambda: isinstance(pilot.app.screen, TranscriptScreen))
    return pilot.app.screen.query_one("#transcript-body", Static)
