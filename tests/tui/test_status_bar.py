"""The status line at 80 columns: the demo's story is told whole, in its short form, before
the server's label (which the line's end cuts); at full width the line reads as before."""

from __future__ import annotations

from t3tui.tui.app.autopilot import checkin_notes, settle_notes
from t3tui.tui.screenshots import settled, showcase_app
from t3tui.tui.widgets.panes import StatusBar

# the demo's own titles (scenarios/demo.json, tests/tui/test_demo_story.py)
NOTE, SHORT = checkin_notes("Settled by the demo (seed 004)", "Checked in after the settle")


async def shown(size: tuple[int, int]) -> str:
    app = showcase_app()
    async with app.run_test(size=size) as pilot:
        await settled(pilot)
        app.demo_note, app.demo_short = NOTE, SHORT
        app.refresh_view()
        await pilot.pause()
        status = app.query_one(StatusBar)
        return str(status.render())


async def test_a_narrow_status_line_tells_the_demo_note_whole() -> None:
    text = await shown((80, 24))  # 78 columns inside the bar's padding
    # the story first, whole, then the count; the label is what the line's end cuts
    assert text.startswith("● live · " + SHORT + " · 18 threads · ")
    assert len("● live · " + SHORT) < 78 and "seq" not in text


async def test_a_wide_status_line_keeps_its_order_and_the_long_note() -> None:
    text = await shown((260, 40))
    assert "seq " in text and text.endswith(" · " + NOTE)


def test_the_short_notes_fit_an_80_column_status_line() -> None:
    long_title = "A parent whose title goes on and on for longer than any line"
    for note, short in (settle_notes(long_title), checkin_notes(long_title, long_title),
                        (NOTE, SHORT)):
        assert len("● live · " + short) < 78 < len(note)  # room for the cut's "…"


async def test_the_demo_note_goes_once_the_user_starts_acting() -> None:
    # it stayed for the whole session, over whatever the user was doing
    app = showcase_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot)
        app.demo_note, app.demo_short = NOTE, SHORT
        app.refresh_view()
        await pilot.pause()
        assert "demo:" in str(app.query_one(StatusBar).render())
        await pilot.press("down")
        await pilot.pause()
        assert app.demo_note == "" and "demo:" not in str(app.query_one(StatusBar).render())


def test_a_repaint_due_after_the_screens_are_gone_is_not_a_traceback() -> None:
    """The held-back sequence's trailing repaint can come due while the app ends: its screen
    stack is already empty, and Textual's `screen_stack[0]` raises IndexError (seen in a
    loaded run of the two-environment actions test, at the Pilot's exit)."""
    from types import SimpleNamespace

    from t3tui.tui.app.statusline import StatusLine

    class Ending:
        source = SimpleNamespace(supervisor=SimpleNamespace(cursor_shell=7))

        def set_timer(self, *_args: object, **_kwargs: object) -> None:
            return None

        @property
        def main_screen(self) -> object:
            return [][0]  # what App.main_screen does with no screen left

    StatusLine(Ending()).repaint()  # type: ignore[arg-type]
