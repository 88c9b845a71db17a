"""Toasts do not bury the screen (issue 21, item 5): a burst is coalesced and capped, the
status line and the tree's selected row stay visible, and no toast repeats itself."""

from __future__ import annotations

import pytest
from textual.widgets._toast import Toast, ToastRack

from t3tui.tui.burst import burst_changes, raise_burst
from t3tui.tui.screenshots import (
    NARROW_SIZE,
    NOW,
    STUCK_CHILD,
    WIDE,
    environments_app,
    settled,
    showcase_app,
)
from t3tui.tui.view.notify import notices
from t3tui.tui.widgets.panes import StatusBar
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.screen import screen_lines
from tests.tui.waiting import until


def toast_texts(app) -> list[str]:
    return [str(t.render()) for t in app.screen.query(Toast)]


@pytest.mark.parametrize("size", [WIDE, NARROW_SIZE], ids=["160x48", "80x24"])
async def test_a_burst_of_toasts_is_capped_coalesced_and_leaves_status_and_selection(size):
    app = showcase_app()
    async with app.run_test(size=size, notifications=True) as pilot:
        await settled(pilot)
        tree = app.query_one(ThreadTree)
        tree.select_thread(STUCK_CHILD)
        await pilot.pause()
        raise_burst(app, NOW)
        def summarised() -> bool:  # the rest of the burst summarised in one toast, laid out
            return any("more" in t and "+" in t for t in toast_texts(app)) \
                and all(t.region.height for t in app.screen.query(Toast))
        await until(summarised, what="the burst on screen, its rest summarised")
        await pilot.pause()
        toasts = list(app.screen.query(Toast))
        texts = [str(t.render()) for t in toasts]
        assert len(toasts) <= 3, texts
        lines = screen_lines(app)
        screen = "\n".join(lines)
        # the check-in outcome raised twice: shown once, counted
        assert screen.count("before the deadline") <= 1, screen
        # the status line is not covered
        status = app.query_one(StatusBar)
        assert status.render().plain[:20].strip() in lines[status.region.y], screen
        for toast in toasts:
            assert not toast.region.overlaps(status.region), (toast.region, status.region)
        # nor the selected row of the tree
        row_y = tree.region.y + tree.cursor_line - tree.scroll_offset.y
        for toast in toasts:
            assert not (toast.region.y <= row_y < toast.region.bottom
                        and toast.region.x < tree.region.right), (toast.region, row_y)


def test_an_orphaned_notice_says_its_reason_once() -> None:
    found = notices(burst_changes(NOW), events=frozenset({"orphaned"}), quiet={}, now=NOW)
    assert len(found) == 1
    assert found[0].text.count("will not be told") == 1, found[0].text


async def test_the_same_story_told_again_is_one_toast_counted() -> None:
    app = showcase_app()
    async with app.run_test(size=WIDE, notifications=True) as pilot:
        await settled(pilot)
        for seconds in (49, 50, 51):  # near-identical: only a number differs
            app.notify(f"no progress for 2m{seconds}s", title="stuck", severity="error",
                       markup=False)
        app.notify("Review B finished (done)", title="finished", markup=False)
        await until(lambda: any("(x3)" in t for t in toast_texts(app)),
                    what="the three told as one toast, counted")
        texts = toast_texts(app)
        assert len(texts) == 2, texts
        assert "no progress for 2m51s (x3)" in texts[0], texts


async def test_toasts_move_to_the_top_rather_than_cover_the_selected_row() -> None:
    app = environments_app()  # two showcases: rows down to the tree's bottom edge
    async with app.run_test(size=WIDE, notifications=True) as pilot:
        await settled(pilot)
        await pilot.press("t")  # the timeline hidden: the tree reaches the status line
        tree = app.query_one(ThreadTree)
        last = app.view.rows[-1].id if app.view else ""
        tree.select_thread(last)
        await pilot.pause()
        row_y = tree.region.y + tree.cursor_line - round(tree.scroll_offset.y)
        assert row_y > WIDE[1] - 8, row_y  # where bottom toasts would be
        raise_burst(app, NOW)

        def clear_of_row() -> bool:
            toasts = [t.region for t in app.screen.query(Toast) if t.region.height]
            return len(toasts) >= 2 and all(not (r.y <= row_y < r.bottom) for r in toasts)

        await until(clear_of_row, what="toasts off the selected row")
        assert app.screen.get_child_by_type(ToastRack).has_class("-top")


async def test_textual_private_notification_hooks_are_still_the_ones_toasts_replaces() -> None:
    """Textual 8.2.8 offers no public hook for what the toast stack holds: `notify` only
    posts a `Notify`, App's private `_on_notify` adds it to the private `_notifications`
    and `_refresh_notifications` hands them to the rack. `tui/app/toasts.py` replaces that
    handler; if an upgrade renames or changes any of these, this fails by name (rather than
    toasts silently stacking again)."""
    import inspect

    from textual.app import App
    from textual.notifications import Notification, Notifications, Notify

    from t3tui.tui.app.toasts import ToastsMixin

    hooks = "App._on_notify / _notifications / _refresh_notifications"
    assert "_on_notify" in App.__dict__, f"Textual no longer handles Notify in {hooks}"
    body = inspect.getsource(App._on_notify)
    assert "self._notifications.add(event.notification)" in body, \
        f"Textual's {hooks} changed; revisit t3tui/tui/app/toasts.py:\n{body}"
    assert "self._refresh_notifications()" in body, body
    assert callable(getattr(App, "_refresh_notifications", None)), hooks
    for name in ("add", "clear", "__iter__", "__len__", "__contains__"):
        assert hasattr(Notifications, name), f"Notifications.{name} is gone ({hooks})"
    note = Notification("m", "t", "information", 5.0, markup=False)
    assert isinstance(note.identity, str) and note.time_left > 0

    class Bare(ToastsMixin, App[None]):
        @property
        def main_screen(self):  # what the mixin places toasts on (the app's tree screen)
            return self.screen

        def place_toasts(self) -> None:  # no thread tree here to keep in sight
            pass

    app = Bare()
    async with app.run_test(notifications=True) as pilot:
        for _ in range(3):  # the same story three times: only the mixin counts it
            app.post_message(Notify(Notification("same story", "t", "information", 30.0,
                                                 markup=False)))
        await until(lambda: any("(x3)" in n.message for n in app._notifications),
                    what="the mixin's handler counting the story")
        await pilot.pause()
        assert len(app._notifications) == 1, [n.message for n in app._notifications]


async def test_news_that_comes_as_the_app_ends_is_dropped_not_a_traceback() -> None:
    """A notice still queued when the app ends (its screens gone) once raised IndexError out of
    the toast stack (a whole-suite run: `main_screen` of an empty screen stack)."""
    from textual.app import Notify
    from textual.notifications import Notification

    app = showcase_app()
    async with app.run_test(size=WIDE, notifications=True) as pilot:
        await settled(pilot)
    assert not app.screen_stack  # the app has ended: what a late message meets
    app._on_notify(Notify(Notification("Review B finished (done)", title="finished")))


async def test_toasts_placed_as_the_app_ends_are_not_a_traceback() -> None:
    """A selection moved as the app ended asked to place the toasts over no screen
    (ScreenStackError in a whole-suite run of the hostile-server test)."""
    app = showcase_app()
    async with app.run_test(size=WIDE, notifications=True) as pilot:
        await settled(pilot)
        app.notify("Review B finished (done)", title="finished", markup=False)
        await until(lambda: len(app._notifications), what="the toast held")
    assert not app.screen_stack and len(app._notifications)
    app.place_toasts()


async def test_news_that_comes_while_the_app_shuts_down_is_not_a_traceback() -> None:
    """Shutting down, the app stops running before its screens are closed: a notice handled
    then once subscribed the stopped app to the screen's layout signal (SignalError, a
    traceback out of a whole-suite run of the app's policies)."""
    from textual.app import Notify
    from textual.notifications import Notification

    app = showcase_app()
    async with app.run_test(size=WIDE, notifications=True) as pilot:
        await settled(pilot)
        assert app.main_screen.is_running and not app._placing_toasts
        app._running = False  # what `App._shutdown` does first, before closing the screens
        try:
            app._on_notify(Notify(Notification("Review B finished (done)", title="finished")))
        finally:
            app._running = True
        assert not app._placing_toasts  # nothing subscribed for a stopped app
