"""A frame's fixed cost: what every frame did whatever changed (the action gates, the status
bar's sequence) is done only when what it shows changed, and is still right."""

from __future__ import annotations

import time
from typing import Any

import pytest

from t3tui.backend.testing import running_backend
from t3tui.client.state import Live
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.keys import ACTIONS
from t3tui.tui.app.messages import ConnectionChanged
from t3tui.tui.app.statusline import SEQUENCE_S
from t3tui.tui.screenshots import settled, showcase_app
from t3tui.tui.widgets.footer import KeyFooter
from t3tui.tui.widgets.panes import Banner, StatusBar
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.model import factory as f
from tests.spy import calls
from tests.tui.test_footer import interrupt_key, select_where
from tests.tui.test_live import DEMO_PARAMS, live_app
from tests.tui.waiting import until

SIZE = (160, 48)


def frame(app: Any) -> None:
    """One frame as the renderer runs it: the stream's changes and the selected row."""
    app.renderer.patch(app.renderer.selected())


async def test_frames_check_the_gates_only_when_what_they_read_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        tree = app.query_one(ThreadTree)
        select_where(app, tree, None)  # a row on which interrupt is dimmed
        frame(app)
        checked: list[str] = calls(monkeypatch, app.actions, "check_action",
                                   lambda action, *rest: action)
        for _ in range(10):
            frame(app)
        assert checked == [], f"{len(checked)} gates checked in 10 frames that changed none"

        # the selection moves: the very next frame checks them, and the keys follow
        select_where(app, tree, True)
        checked.clear()
        refreshed: list[int] = []
        monkeypatch.setattr(app, "refresh_bindings", lambda: refreshed.append(1))
        frame(app)
        assert len(checked) == len(ACTIONS) and refreshed == [1]
        monkeypatch.undo()
        app.refresh_bindings()
        await until(lambda: (k := interrupt_key(app)) is not None
                    and not k.has_class("-disabled"), what="the footer's interrupt key on")
        assert app.query_one(KeyFooter) is not None


async def test_the_sequence_is_painted_a_few_times_a_second_and_exact_once_quiet(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        bar = app.query_one(StatusBar)
        painted: list[str] = calls(monkeypatch, bar, "update",
                                   lambda *args, **kwargs: str(args[0]) if args else "")
        supervisor = app.source.supervisor
        first = supervisor.cursor_shell
        assert first is not None
        row = f.shell_row("thread-busy", "Busy", -10, status="running", run="run-b",
                          requested=-10, started=-10, updated=-5)
        started = time.monotonic()
        for n in range(1, 41):  # the stream moves faster than frames: every frame a new number
            supervisor.apply_shell({"kind": "thread.updated", "sequence": first + n,
                                    "location": "active", "thread": row})
            frame(app)
        elapsed = time.monotonic() - started
        # the new thread's count paints once; the number alone a few times a second
        assert len(painted) <= 2 + elapsed / SEQUENCE_S, \
            f"{len(painted)} paints of the status bar in {elapsed:.2f} s"
        last = f"seq {first + 40}"
        await until(lambda: last in str(bar.render()), timeout=5.0,
                    what="the last sequence on the status bar once the stream is quiet")


@pytest.mark.e2e
async def test_the_turn_to_live_over_a_synchronized_tree_takes_no_full_view(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The turn to live took a full view (35-115 ms at 5,000 threads), which landed on the
    user's first keys, though at a big tree the catch-up's own full view had run before it
    and the rows were those on screen. Over a synchronized tree the turn is a frame's: the
    banner, the status, the tree's dimming."""
    seen: list[tuple[bool, int]] = []  # at the turn to live: (view synchronized, full views)
    real = SupervisorApp.on_connection_changed

    def counted(self: SupervisorApp, message: ConnectionChanged) -> None:
        supervisor = self.source.supervisor
        if not isinstance(message.state, Live):
            real(self, message)
            return
        if supervisor.synchronized():
            self.renderer.refresh_view()  # the catch-up's frame, first as at 5,000 threads
        synced = self.view is not None and self.view.synchronized
        views: list[int] = []
        view = supervisor.view
        supervisor.view = lambda now: views.append(1) or view(now)
        try:
            real(self, message)
        finally:
            del supervisor.view
        seen.append((synced, len(views)))

    monkeypatch.setattr(SupervisorApp, "on_connection_changed", counted)
    async with running_backend(scenario="demo", scenario_params=DEMO_PARAMS) as backend:
        app = live_app(backend.url, backend.token)
        async with app.run_test(size=SIZE):
            await until(lambda: seen, what="the connection live")
            assert seen == [(True, 0)], f"(synchronized, full views) at the turn: {seen}"
            tree = app.query_one(ThreadTree)
            bar, banner = app.query_one(StatusBar), app.query_one(Banner)
            await until(lambda: "● live" in str(bar.render()) and not tree.has_class("-stale")
                        and not str(banner.render()).strip(),
                        what="the live look: status, banner gone, tree not dimmed")


async def test_the_first_key_clears_the_demo_note_without_a_full_view(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's note is the status line's alone: the first key took a full view for it."""
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        app.demo_note, app.demo_short = "demo: settled by itself", "demo: settled"
        app.refresh_view()
        bar = app.query_one(StatusBar)
        assert "demo:" in str(bar.render())
        supervisor = app.source.supervisor
        views: list[int] = []
        view = supervisor.view
        monkeypatch.setattr(supervisor, "view", lambda now: views.append(1) or view(now))
        await pilot.press("down")
        await until(lambda: "demo:" not in str(bar.render()), what="the note gone")
        await pilot.pause()
        assert app.demo_note == "" and views == []
