"""The action gates a frame leaves cached (the footer's keys, the palette) are those checked
fresh from the same state, after every frame, whatever the user and the stream did between
frames: the cache key (tui/app/gates.py) misses no input the gates read."""

from __future__ import annotations

import pytest

from t3tui.client.state import Live, Reconnecting
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.gates import Gates
from t3tui.tui.app.keys import ACTIONS
from t3tui.tui.app.messages import ActionStatus, ActionUpdate, ConnectionChanged
from t3tui.tui.screens.modals import HelpScreen
from t3tui.tui.screenshots import settled, showcase_app
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.test_frame_cost import frame
from tests.tui.waiting import until

SIZE = (160, 48)


def fresh(app: SupervisorApp) -> tuple[bool | None, ...]:
    return tuple(app.check_action(spec.action, ()) for spec in ACTIONS)


class Watch:
    """After each frame's gates: the cached gates against fresh ones, every mismatch kept."""

    def __init__(self, app: SupervisorApp, monkeypatch: pytest.MonkeyPatch) -> None:
        self.frames = 0
        self.stale: list[str] = []
        gates = app.renderer.gates
        real = gates.refresh

        def checked() -> None:
            real()
            self.frames += 1
            now = fresh(app)
            if gates.shown != now:
                wrong = [f"{spec.action}: cached {a!r}, fresh {b!r}"
                         for spec, a, b in zip(ACTIONS, gates.shown, now, strict=True) if a != b]
                self.stale.append(f"frame {self.frames} on {type(app.screen).__name__}: "
                                  + "; ".join(wrong))

        monkeypatch.setattr(gates, "refresh", checked)


async def test_the_cached_gates_are_the_fresh_ones_after_every_frame(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert isinstance(app.renderer.gates, Gates)
        watch = Watch(app, monkeypatch)
        tree = app.query_one(ThreadTree)
        assert app.view is not None
        rows = [row.id for row in app.view.rows]
        assert len(rows) > 3

        # the selection moves over every row, and back
        for row_id in [*rows, *reversed(rows)]:
            tree.select_thread(row_id)
            frame(app)
        # a filter typed, a frame after each key, kept, then cleared; typed again, escaped
        for keys, end in (("run", "0"), ("wai", "escape")):
            await pilot.press("slash")
            frame(app)
            for key in keys:
                await pilot.press(key)
                frame(app)
            await pilot.press("enter")
            frame(app)
            await pilot.press(end)
            frame(app)
        await pilot.press("slash", "escape")
        frame(app)
        # a modal opened and closed
        await pilot.press("question_mark")
        await until(lambda: isinstance(app.screen, HelpScreen), what="the help screen")
        frame(app)
        await pilot.press("escape")
        await until(lambda: app.screen is app.main_screen, what="the main screen again")
        frame(app)
        # the connection drops and comes back, a frame over each
        for state in (Reconnecting(attempt=1, last_error="dropped"), Live()):
            app.post_message(ConnectionChanged(state))
            await until(lambda s=state: app.conn is s, what=f"the connection {state}")
            frame(app)
        # an action in flight on each row, then done
        for row_id in rows:
            tree.select_thread(row_id)
            for phase in ("pending", "ok"):
                app.post_message(ActionUpdate(ActionStatus(row_id, "interrupt", phase, phase, app.clock())))
                await until(lambda r=row_id, p=phase: app.statuses.get(r, {}).get(
                    "interrupt", None) is not None
                    and app.statuses[r]["interrupt"].phase == p, what=f"{row_id} {phase}")
                frame(app)
        await pilot.pause()
        assert watch.frames >= 2 * len(rows) + 10, f"only {watch.frames} frames watched"
        assert watch.stale == [], "stale gates:\n" + "\n".join(watch.stale)
