"""The timeline pane is drawn for the width it has now, not the width it had when last shown.

`TimelineView.show` reads its size when the app refreshes it; the showcase's clock is frozen,
so nothing refreshes it after a resize: the pane must draw itself again when its size changes
(a wider terminal left its right part empty, a narrower one cut its axis and bars)."""

from __future__ import annotations

import re

from t3tui.tui.screenshots import REVIEW, settled, showcase_app
from t3tui.tui.widgets.panes import TimelineView
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.waiting import until

CLOCK_AT_END = re.compile(r"\d\d:\d\d:\d\d$")


def lines(timeline: TimelineView) -> list[str]:
    return str(timeline.render()).splitlines()


def drawn_for_its_width(timeline: TimelineView) -> bool:
    """The axis (the third line) spans the pane, its last clock at the right edge, and no
    line is wider than the pane."""
    width = timeline.content_size.width
    shown = lines(timeline)
    return (len(shown) > 3 and len(shown[2]) == width and bool(CLOCK_AT_END.search(shown[2]))
            and all(len(line) <= width for line in shown))


async def test_the_timeline_is_drawn_again_for_the_new_width_after_a_resize() -> None:
    app = showcase_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        assert app.query_one(ThreadTree).select_thread(REVIEW)
        timeline = app.query_one(TimelineView)
        await until(lambda: timeline.display and drawn_for_its_width(timeline),
                    what="the review panel's timeline at 120 columns")
        for width in (170, 90, 130):  # wider, then narrower than ever (no legend), then between
            await pilot.resize_terminal(width, 40)
            await until(lambda w=width: timeline.content_size.width == w - 4,
                        what=f"the pane laid out at {width} columns")
            await until(lambda: drawn_for_its_width(timeline),
                        what=f"the timeline drawn again for {width} columns")
            bars = [line for line in lines(timeline) if line.startswith(("✔", "▶"))]
            assert len(bars) == 2 and all(len(bar) == width - 4 for bar in bars)
            legend = lines(timeline)[-1]
            assert legend.startswith("░ created") == (width - 4 >= 96)
