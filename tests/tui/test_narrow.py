"""80x24, as a new user sees it (issue 21, item 6): the tree's titles can be told apart, the
finding column is not under the scrollbar, the footer keeps `? Help` and `q Quit`."""

from __future__ import annotations

from rich.cells import cell_len

from t3tui.tui.screenshots import NARROW_SIZE, REVIEW, STUCK_CHILD, settled, showcase_app
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.screen import screen_lines


async def test_80x24_titles_tell_threads_apart_and_the_finding_clears_the_scrollbar() -> None:
    app = showcase_app()
    async with app.run_test(size=NARROW_SIZE) as pilot:
        await settled(pilot)
        tree = app.query_one(ThreadTree)
        tree.select_thread(STUCK_CHILD)
        await pilot.pause()
        lines = screen_lines(app)
        assert app.view is not None
        titles = {r.title for r in app.view.rows}
        # every title the window shows, at least its first 18 characters (the showcase has
        # titles alike for their first 9: "Settle me…" / "Settled b…")
        shown = [t for t in titles if any(t[:8] in line for line in lines)]
        assert shown, lines
        for title in shown:
            assert any(title[:18] in line for line in lines), (title, "\n".join(lines))
        # the stuck child's finding word whole, with the tree box's border after it
        row = next(line for line in lines if "⚑ stuck" in line)
        assert "⚑ stuck " in row, row
        # no row's text runs under the tree's scrollbar column
        room = tree.scrollable_content_region.width
        assert room < tree.size.width  # the scrollbar's column is kept (styles.tcss)
        for y in range(tree.size.height):
            text = tree.render_line(y).text.rstrip()
            assert cell_len(text) <= room, (cell_len(text), room, text)


async def test_80x24_footer_keeps_help_and_quit() -> None:
    app = showcase_app()
    async with app.run_test(size=NARROW_SIZE) as pilot:
        await settled(pilot)
        app.query_one(ThreadTree).select_thread(REVIEW)
        await pilot.pause()
        footer = screen_lines(app)[-1]
        assert "? Help" in footer, footer
        assert "q Quit" in footer, footer
        assert footer.isprintable(), repr(footer)
