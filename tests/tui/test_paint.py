"""The main screen paints as soon as a paint is due (t3tui/tui/screens/paint.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from textual import constants
from textual._time import get_time

from t3tui.tui.screens.paint import INTERVAL, MainScreen, PromptTimer, tick_wait
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.screenshots import settled, showcase_app
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.waiting import until

SIZE = (140, 40)


def test_a_resumed_timer_waits_at_most_the_rest_of_one_interval() -> None:
    """Textual's own timer, resumed after missing its grid, waited for the second grid point
    ahead (17-33 ms at 60 fps): a key or a stream frame right after a paint waited that long
    with the loop idle. The prompt timer waits only for the rest of the interval since its
    last tick, never more, and not at all once a whole interval has passed."""
    last = 100.0
    assert tick_wait(last, last + 1.5 * INTERVAL, INTERVAL, float("-inf")) == 0.0
    assert tick_wait(last, last + 40 * INTERVAL, INTERVAL, float("-inf")) == 0.0
    rest = tick_wait(last, last + 0.25 * INTERVAL, INTERVAL, float("-inf"))
    assert abs(rest - 0.75 * INTERVAL) < 1e-9
    for step in range(0, 400):
        now = last + step * INTERVAL / 100
        assert 0.0 <= tick_wait(last, now, INTERVAL, float("-inf")) <= INTERVAL
    # a key's hurry lifts the cap while it lasts, and only then
    assert tick_wait(last, last + 0.1 * INTERVAL, INTERVAL, last + 0.2 * INTERVAL) == 0.0
    assert tick_wait(last, last + 0.5 * INTERVAL, INTERVAL, last + 0.2 * INTERVAL) > 0.0


async def test_the_main_screen_paints_through_the_prompt_timer_and_a_key_hurries_it() -> None:
    """The app's first screen is painted by a `PromptTimer` (Textual still asks for it
    through `Screen._update_timer`: if it stopped, this fails), a key press lifts the cap
    before the key is routed, and the cursor's move is painted by that timer."""
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen_stack[0]
        assert isinstance(screen, MainScreen)
        timer = screen._update_timer
        assert isinstance(timer, PromptTimer)
        assert timer in screen._timers
        ticks: list[float] = []
        paint = timer._callback
        assert paint is not None

        def counted() -> object:
            ticks.append(get_time())
            return paint()

        timer._callback = counted
        tree = app.query_one(ThreadTree)
        await until(lambda: tree.cursor_line >= 0, what="a cursor")
        line = tree.cursor_line
        pressed = get_time()
        await pilot.press("down")
        assert timer._free_until > pressed, "the key did not hurry the paint"
        await until(lambda: tree.cursor_line == line + 1, what="the cursor moved")
        await until(lambda: any(t > pressed for t in ticks), what="a paint after the key")


async def test_a_paint_after_a_quiet_moment_never_defers_the_next_past_one_interval() -> None:
    """Behaviour, on whichever timer paints the main screen: after a paint that followed a
    quiet moment, the screen's timer may not plan its next tick more than one interval away.
    Textual's grid timer planned it 1 to 2 intervals away every time (it skipped to the
    second grid point ahead), so the next key or frame waited with the loop idle."""
    interval = 1 / constants.MAX_FPS
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.pause()
        loop = asyncio.get_running_loop()
        planned: list[float] = []
        original = loop.call_at

        def call_at(when: float, callback: Any, *args: Any, **kwargs: Any) -> Any:
            task = asyncio.current_task()
            if task is not None and task.get_name() == "screen_update":
                planned.append(when - loop.time())
            return original(when, callback, *args, **kwargs)

        loop.call_at = call_at  # type: ignore[method-assign]
        try:
            quiet_from = loop.time()  # nothing repaints the showcase (no ticks): quiet
            await until(lambda: loop.time() > quiet_from + 3 * interval, what="a quiet moment")
            tree = app.query_one(ThreadTree)
            line = tree.cursor_line
            await pilot.press("down")
            await until(lambda: tree.cursor_line == line + 1, what="the cursor moved")
            for _ in range(3):
                await pilot.pause()
        finally:
            del loop.call_at  # back to the class's own
        assert all(wait <= interval + 0.001 for wait in planned), \
            f"next paint planned {max(planned) * 1000:.1f} ms away (interval {interval * 1000:.1f})"


async def test_the_transcript_screen_paints_promptly_too() -> None:
    """The app keeps showing the stream on an open transcript, frame by frame: its paints
    and its keys go through the same prompt timer."""
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, TranscriptScreen), what="the transcript")
        assert isinstance(app.screen._update_timer, PromptTimer)
        pressed = get_time()
        await pilot.press("down")
        assert app.screen._update_timer._free_until > pressed, "the key did not hurry the paint"
