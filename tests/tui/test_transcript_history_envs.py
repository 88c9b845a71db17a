"""A long thread's transcript with several environments (`--env A --env B`): the older
messages are read from the server of the environment that owns the thread, over its own
connection. Both backends hold a thread with the same id and title, so a read routed to the
wrong environment shows the other server's words."""

from __future__ import annotations

import contextlib

import pytest

from t3tui.backend.testing import RunningBackend, running_backend, wait_until
from t3tui.model.environments import qualify
from t3tui.tui.sources import transcripts
from tests.tui.long_talk import open_transcript, reply
from tests.tui.test_environments_actions import select_in, two_env_app
from tests.tui.test_live import SIZE, text_of
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e

THREAD = "thread-long-talk"


async def _long_talk(backend: RunningBackend, first: str, last: str) -> None:
    """A thread of four messages: `first` asked and answered, then `last`."""
    await backend.engine.launch_thread({
        "commandId": f"launch-{first}", "creationSource": "web", "projectId": "project-1",
        "threadId": THREAD, "title": "A long talk",
        "modelSelection": {"instanceId": "codex", "model": "m"},
        "runtimeMode": "full-access", "interactionMode": "default",
        "workspaceStrategy": {"type": "root"},
        "initialMessage": {"text": f"Reply {first}", "attachments": []},
    })
    await wait_until(lambda: (row := backend.engine.shell_row(THREAD)) is not None
                     and row.status == "completed", timeout=15)
    await reply(backend, THREAD, last)


async def test_older_messages_come_from_the_threads_own_environment(monkeypatch) -> None:
    monkeypatch.setattr(transcripts, "MAX_MESSAGES", 2)
    async with running_backend() as laptop, running_backend() as devbox:
        await _long_talk(laptop, "LAPTOPFIRST", "LAPTOPLAST")
        await _long_talk(devbox, "DEVBOXFIRST", "DEVBOXLAST")
        app = two_env_app((laptop, devbox))
        async with app.run_test(size=SIZE) as pilot:
            row = await select_in(pilot, "devbox", "A long talk")
            assert row.id == qualify("devbox", THREAD)
            held = await until(lambda: len((t := app.source.transcripts.get(row.id)).messages)
                               == 2 and t, what="the devbox thread's latest messages")
            assert held.dropped == 2  # the bound: the first exchange is not held
            body = await open_transcript(pilot)
            await until(lambda: "Reply DEVBOXFIRST" in text_of(body), timeout=15,
                        what="the older messages, read from the devbox server")
            shown = text_of(body)
            assert shown.index("Reply DEVBOXFIRST") < shown.index("Reply DEVBOXLAST")
            assert "LAPTOP" not in shown
            assert "not held" not in shown  # loaded: no note left
            await pilot.press("escape")
            await until(lambda: app.screen is app.main_screen)
            assert len(app.source.transcripts.get(row.id).messages) == 2


async def test_an_environment_that_is_down_says_its_older_messages_could_not_be_read(
        monkeypatch) -> None:
    monkeypatch.setattr(transcripts, "MAX_MESSAGES", 2)
    async with running_backend() as laptop, contextlib.AsyncExitStack() as devbox_stack:
        devbox = await devbox_stack.enter_async_context(running_backend())
        await _long_talk(devbox, "DEVBOXFIRST", "DEVBOXLAST")
        app = two_env_app((laptop, devbox))
        async with app.run_test(size=SIZE) as pilot:
            row = await select_in(pilot, "devbox", "A long talk")
            await until(lambda: app.source.transcripts.get(row.id).dropped == 2,
                        what="the devbox thread's latest messages")
            await devbox_stack.aclose()  # the devbox server goes away under the app
            await until(lambda: "devbox" in app.source.down(), what="devbox down")
            body = await open_transcript(pilot)
            await until(lambda: "could not be read" in text_of(body), timeout=15,
                        what="the failure, in one line")
            shown = text_of(body)
            assert shown.startswith("2 older messages are not held; they could not be read: ")
            assert "Reply DEVBOXLAST" in shown and "DEVBOXFIRST" not in shown
