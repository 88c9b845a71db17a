"""Past the stream cap, the app's status line says how many active threads are not watched."""

from __future__ import annotations

from t3tui.tui.screenshots import settled, showcase_app
from t3tui.tui.widgets.panes import StatusBar
from tests.model.test_interest import running, updated


async def test_the_status_line_says_how_many_active_threads_are_watched_past_the_cap() -> None:
    app = showcase_app()
    async with app.run_test(size=(200, 40)) as pilot:
        await settled(pilot)
        sup = app.source.supervisor
        sup.threads_of_interest()  # what the client asks after every batch
        assert "watching" not in str(app.query_one(StatusBar).render())
        streams = len(sup.threads_of_interest())
        for i, tid in enumerate(("top-1", "top-2")):  # two top-level threads start runs
            sup.apply_shell(updated(running(tid, 10_000 + i), 10**9 + i))
        sup.set_watch_cap(streams + 1)  # room for one of them
        sup.threads_of_interest()
        watching = sup.watching()
        assert watching is not None and watching.unwatched == 1
        app.refresh_view()
        await pilot.pause()
        text = str(app.query_one(StatusBar).render())
        assert f"watching {watching.watched} of {watching.active} active threads" in text
