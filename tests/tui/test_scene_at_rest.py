"""A screenshot scene is the screen at rest, the same from one generation to the next.

The timeline's text grew by its legend after the pane was first laid out; the layout it asked
for then measured the old text whenever another one was still pending, so the pane stayed a
row short (legend cut) until some other widget happened to ask for a layout: with toasts
on, never. Which of the two `make snapshots` caught depended on that timing."""

from __future__ import annotations

import pytest

from t3tui.tui.screenshots import BY_NAME
from t3tui.tui.widgets.panes import StyledStatic


@pytest.mark.parametrize("name", ["timeline", "environments", "tree"])
async def test_a_scene_is_taken_with_every_pane_as_tall_as_its_text(name: str) -> None:
    scene = BY_NAME[name]
    app = scene.make()
    async with app.run_test(size=scene.size, notifications=True) as pilot:
        await scene.prepare(pilot)
        taken = app.export_screenshot()
        for pane in app.screen.query(StyledStatic):
            if not pane.display or pane.FIXED_SIZE:
                continue
            size = pane.content_size
            wanted = pane.get_content_height(size, size, size.width)
            if pane.styles.min_height is not None:  # the detail: at least its window's height
                window = pane.parent.scrollable_content_region.size  # type: ignore[union-attr]
                wanted = max(wanted, int(pane.styles.min_height.resolve(window, app.size)))
            assert size.height == min(wanted, pane.styles.max_height.value
                                      if pane.styles.max_height else wanted), \
                f"{name}: #{pane.id} laid out {size.height} rows for {wanted} rows of text"
        for _ in range(5):  # whatever was pending has run by now
            await pilot.pause(0.1)
        assert app.export_screenshot() == taken, f"{name}: the picture was not the screen at rest"
