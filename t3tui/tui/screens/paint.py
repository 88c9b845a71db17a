"""Screens that paint as soon as a paint is due: `PromptPaint`, and `MainScreen` with it.

Textual paints a screen from a timer (`screen_update`, at most `MAX_FPS` a second) that pauses
after each paint and is resumed when something is dirty. Textual 8's timer, resumed after it
missed its grid, skips to the second grid point ahead (`count = int(elapsed / interval + 1)`,
then `start + (count + 1) * interval`), so a paint asked for after a quiet moment waited
17 to 33 ms at 60 fps whatever the loop was doing. Under a stream's frames that
wait was most of a key press's way to the screen (p95 35 ms, issue 25), and a probe's too.
`PromptTimer` keeps the cap (no two paints closer than one interval) and drops the rest of
the wait: resumed a whole interval after its last tick, it ticks at once; sooner, one
interval after that tick. A key press lifts the cap for a moment (`hurry`): what the key
moved is painted at once, not behind the stream's last paint. It replaces the screen's timer
through `Screen._update_timer`, a private hook of the pinned Textual (tests/tui/test_paint.py
fails if it stops being used).
"""

from __future__ import annotations

import asyncio
from contextlib import suppress

from textual import constants
from textual._time import get_time
from textual.screen import Screen
from textual.timer import EventTargetGone, Timer

INTERVAL = 1 / constants.MAX_FPS
# How long a key press lifts the cap: its own paint comes one or two hops after the key
# (the widget's refresh reaches the screen by message), and any tick in between must not
# make it wait an interval. A key every HURRY_S at most adds one paint in ten.
HURRY_S = 0.05


def tick_wait(last: float, now: float, interval: float, free_until: float) -> float:
    """Seconds a resumed `PromptTimer` waits before it ticks: none while a key's hurry
    lasts (`free_until`) or once a whole interval has passed since the `last` tick; else
    the rest of that interval. No grid: the wait never reaches past one interval."""
    if now < free_until:
        return 0.0
    return max(0.0, last + interval - now)


class PromptTimer(Timer):
    """A repeating timer that ticks when active, at most once per interval, with no
    grid: the first tick after a pause comes as soon as the interval since the last allows."""

    _free_until = float("-inf")
    _hurried: asyncio.Event | None = None

    def hurry(self, seconds: float = HURRY_S) -> None:
        """Tick without the cap for `seconds` (a key was pressed: paint what it moved now)."""
        self._free_until = get_time() + seconds
        if self._hurried is not None:
            self._hurried.set()

    async def _run(self) -> None:
        last = float("-inf")
        count = 0
        self._hurried = hurried = asyncio.Event()
        while self._repeat is None or count <= self._repeat:
            await self._active.wait()
            wait = tick_wait(last, get_time(), self._interval, self._free_until)
            if wait > 0:
                hurried.clear()
                with suppress(TimeoutError):
                    async with asyncio.timeout(wait):
                        await hurried.wait()
                await self._active.wait()
            last = get_time()
            count += 1
            try:
                await self._tick(next_timer=last, count=count)
            except EventTargetGone:
                break


class PromptPaint(Screen[object]):
    """A screen painted by a `PromptTimer` (see the module docstring)."""

    _prompt_timer: PromptTimer | None = None

    @property
    def _update_timer(self) -> Timer:
        if self._prompt_timer is None:
            timer = PromptTimer(self, INTERVAL, name="screen_update",
                                callback=self._on_timer_update, pause=True)
            timer._start()
            self._timers.add(timer)
            self._prompt_timer = timer
        return self._prompt_timer


    def hurry(self) -> None:
        """A key was pressed: what it moved is painted without waiting for the cap."""
        self._update_timer.hurry()  # type: ignore[attr-defined]


class MainScreen(PromptPaint):
    """The app's first screen (`SupervisorApp.get_default_screen`): the tree and its panes."""
