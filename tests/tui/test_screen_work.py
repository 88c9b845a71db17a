"""What the screen redoes when the data changes: a pane whose size stays the same repaints
without laying the screen out again, and the tree's scrollbar is drawn again only when its
window or the tree's length moves (BENCHMARKS.md, issue 25: both were most of the app's
paint time under load). Counted around Textual's own methods, on the showcase frames."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rich.text import Text
from textual.screen import Screen
from textual.scrollbar import ScrollBar

from t3tui.tui.screenshots import environments_app, settled, showcase_app
from t3tui.tui.widgets.panes import DetailPane
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.waiting import until

SIZE = (140, 40)


@pytest.fixture
def layouts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """One entry per layout of the screen (`Screen._refresh_layout`: every widget placed and
    sized again)."""
    seen: list[int] = []
    original = Screen._refresh_layout

    def counted(screen: Screen, *args: object, **kwargs: object) -> None:
        seen.append(1)
        original(screen, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    yield seen


def lines(count: int, word: str) -> Text:
    return Text("\n".join(f"{word} {i}" for i in range(count)))


async def test_the_detail_pane_repaints_without_a_layout_while_its_height_stays(
        layouts: list[int]) -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        detail = app.query_one(DetailPane)
        height = detail.size.height
        assert height > 2
        detail.set_text(lines(height, "first"))  # the same height: the layout stands
        await pilot.pause()
        before = len(layouts)
        detail.set_text(lines(height, "second"))
        await until(lambda: "second 0" in detail.render_line(0).text, what="the new text")
        await pilot.pause()
        assert len(layouts) == before
        assert f"second {height - 1}" in detail.render_line(height - 1).text

        detail.set_text(lines(height + 3, "taller"))  # three more lines: laid out again
        await until(lambda: detail.size.height == height + 3, what="the pane grown")
        assert len(layouts) > before
        assert f"taller {height + 2}" in detail.render_line(height + 2).text


@pytest.fixture
def bar_renders(monkeypatch: pytest.MonkeyPatch) -> list[ScrollBar]:
    """One entry per render of a scrollbar's lines (Textual's `_render_content`: the bar
    drawn again through Rich), naming the bar."""
    seen: list[ScrollBar] = []
    original = ScrollBar._render_content

    def counted(bar: ScrollBar) -> None:
        seen.append(bar)
        original(bar)

    monkeypatch.setattr(ScrollBar, "_render_content", counted)
    return seen


async def test_the_tree_scrollbar_is_drawn_again_only_when_its_window_moves(
        bar_renders: list[ScrollBar]) -> None:
    app = environments_app()  # two copies of the showcase: longer than the window
    async with app.run_test(size=(110, 24)) as pilot:
        await settled(pilot)
        tree = app.query_one(ThreadTree)
        bar = tree.vertical_scrollbar
        await until(lambda: tree.show_vertical_scrollbar and bar in bar_renders,
                    what="the tree's scrollbar drawn")
        await pilot.pause()
        drawn = bar_renders.count(bar)
        detail = app.query_one(DetailPane)
        height = detail.size.height
        detail.set_text(lines(height + 3, "taller"))  # the screen laid out again
        await until(lambda: detail.size.height == height + 3, what="the pane grown")
        await pilot.pause()
        assert bar_renders.count(bar) == drawn  # the tree and its window did not move

        tree.scroll_to(y=3, animate=False)
        await until(lambda: tree.scroll_offset.y == 3, what="the tree scrolled")
        await until(lambda: bar_renders.count(bar) > drawn, what="the bar drawn again")
        await pilot.pause()
        # exactly the bar Textual draws for this window
        shown = [bar.render_line(y).text for y in range(bar.size.height)]
        ScrollBar._render_content(bar)
        assert [line.text for line in bar._render_cache.lines] == shown
        assert shown != [shown[0]] * len(shown)  # a thumb and a track, not a blank column


async def test_a_detail_shorter_than_its_window_repaints_without_a_layout(
        layouts: list[int]) -> None:
    """Moving between threads whose details both fit the window asks for no layout; a
    detail longer than the window is laid out, and scrolls."""
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        detail = app.query_one(DetailPane)
        scroll = app.query_one("#detail-scroll")
        window = scroll.scrollable_content_region.height
        assert window > 12
        detail.set_text(lines(window - 4, "first"))
        await until(lambda: "first 0" in detail.render_line(0).text, what="the first text")
        await pilot.pause()
        before = len(layouts)
        detail.set_text(lines(window - 10, "second"))
        await until(lambda: "second 0" in detail.render_line(0).text, what="the shorter text")
        await pilot.pause()
        assert len(layouts) == before
        assert f"second {window - 11}" in detail.render_line(window - 11).text
        assert not detail.render_line(window - 10).text.strip()  # nothing left of the first

        detail.set_text(lines(window + 5, "long"))
        await until(lambda: scroll.max_scroll_y == 5, what="the long text laid out")
        scroll.scroll_end(animate=False)
        await until(lambda: scroll.scroll_offset.y == 5, what="scrolled to its end")
        assert f"long {window + 4}" in detail.render_line(window + 4).text
