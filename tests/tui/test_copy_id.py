"""`y` copies the selected thread's raw wire id: the real app driven by Pilot on recorded
frames (frozen clock, no server). The clipboard is checked twice: Textual's `app.clipboard`
and the OSC 52 sequence the app hands its driver (headless, so recorded instead of written)."""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
from textual.notifications import Notification
from textual.widgets import Static

from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.screenshots import (
    NOW,
    SERVER,
    STUCK_CHILD,
    environments_app,
    settled,
    showcase_app,
)
from t3tui.tui.sources.frames import FrameSource
from t3tui.tui.widgets.env_tree import EnvThreadTree
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.model import factory as f
from tests.tui.waiting import until

SIZE = (140, 40)
OSC52 = re.compile(r"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07")


def record_terminal(app: SupervisorApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the app writes to its terminal from now on (the headless driver drops it)."""
    written: list[str] = []
    monkeypatch.setattr(app._driver, "write", written.append)
    return written


def osc52_copies(written: list[str]) -> list[str]:
    return [base64.b64decode(m).decode("utf-8") for data in written
            for m in OSC52.findall(data)]


def toasts(app: SupervisorApp, title: str) -> list[Notification]:
    return [n for n in app._notifications if n.title == title]


async def select(pilot: Any, thread_id: str) -> None:
    assert pilot.app.query_one(ThreadTree).select_thread(thread_id)
    await pilot.pause()


async def test_y_copies_the_selected_childs_raw_wire_id(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert app.view is not None and app.view.row(STUCK_CHILD).parent_id is not None
        written = record_terminal(app, monkeypatch)
        await select(pilot, STUCK_CHILD)
        await pilot.press("v")  # the raw id the detail shows is the one `y` copies
        await until(lambda: STUCK_CHILD in str(app.query_one("#detail", Static).render()))
        await pilot.press("y")
        shown = await until(lambda: toasts(app, "thread id"))
        assert app.clipboard == STUCK_CHILD
        assert osc52_copies(written) == [STUCK_CHILD]
        assert len(shown) == 1 and not shown[0].markup
        assert shown[0].message.split("\n") == [
            STUCK_CHILD, "(copied with OSC 52 where the terminal allows it)"]


async def test_y_in_a_transcript_copies_that_threads_id() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await select(pilot, STUCK_CHILD)
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, TranscriptScreen))
        await pilot.press("y")
        await until(lambda: toasts(app, "thread id"))
        assert app.clipboard == STUCK_CHILD


async def test_a_hostile_id_is_shown_inert_and_not_put_on_the_clipboard(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A server chooses thread ids. Pasted into a shell, a newline in one runs what follows
    # it; on screen, ESC would drive the terminal and [b] would be read as markup.
    evil = "thread-[b]x[/b]\x1b]2;PWNED\x07\nrm -rf ~"
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        row = f.shell_row(evil, "Evil", -10, status="completed", run="run-x",
                          requested=-10, started=-10, completed=-5, updated=-5)
        app.source.supervisor.apply_shell(
            {"kind": "thread.updated", "sequence": 99999, "location": "active", "thread": row})
        app.refresh_view()
        await until(lambda: evil in app.query_one(ThreadTree).nodes)
        written = record_terminal(app, monkeypatch)
        await select(pilot, evil)
        await pilot.press("y")
        shown = await until(lambda: toasts(app, "thread id"))
        assert app.clipboard == "" and osc52_copies(written) == []
        message = shown[0].message
        assert not shown[0].markup and shown[0].severity == "warning"
        # one line, controls visible (wiretext.display_text: a line break reads as a space)
        assert message.split("\n") == ["thread-[b]x[/b]␛]2;PWNED␇ rm -rf ~",
                                        "(holds control characters: not copied)"], message


async def test_with_environments_y_copies_the_id_the_server_knows() -> None:
    app = environments_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settled(pilot)
        await select(pilot, f"laptop:{STUCK_CHILD}")
        await pilot.press("y")
        shown = await until(lambda: toasts(app, "thread id"))
        # the `laptop:` qualifier is ours; the id itself holds ':' and is kept whole
        assert app.clipboard == STUCK_CHILD
        assert shown[0].message.split("\n")[0] == STUCK_CHILD

        # an environment's node is no thread: a clear warning, the clipboard untouched
        tree = app.query_one(EnvThreadTree)
        tree.move_cursor(tree.env_nodes["devbox"])
        await pilot.pause()
        assert tree.selected_environment == "devbox"
        await pilot.press("y")
        warned = await until(lambda: toasts(app, "copy id"))
        assert [(n.message, n.severity) for n in warned] == [("no thread selected", "warning")]
        assert app.clipboard == STUCK_CHILD
        assert app.is_running


async def test_y_with_no_threads_at_all_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    source = FrameSource([], label=SERVER)
    app = SupervisorApp(source, config=TuiConfig(bell=False), clock=lambda: NOW, tick=None)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.view is not None)
        await pilot.pause()
        assert app.current_thread_id() is None
        written = record_terminal(app, monkeypatch)
        await pilot.press("y")
        warned = await until(lambda: toasts(app, "copy id"))
        assert [(n.message, n.severity) for n in warned] == [("no thread selected", "warning")]
        assert app.clipboard == "" and osc52_copies(written) == []
        assert app.is_running
