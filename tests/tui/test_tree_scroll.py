"""The tree as the user moves around it: the mouse wheel, and rows drawn when they come into
view (labels are drawn when painted, `widgets/row_node.py`), on recorded frames."""

from __future__ import annotations

from textual import events

from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.screenshots import environments_app, settled, steady
from t3tui.tui.widgets.row_node import RowNode
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.waiting import until


def on_screen(app: SupervisorApp, tree: ThreadTree) -> list[tuple[RowNode, str]]:
    """(thread node, its painted line's text) for every thread line in the window."""
    top = tree.scroll_offset.y
    out = []
    for y in range(tree.size.height):
        node = tree.get_node_at_line(top + y)
        if isinstance(node, RowNode):
            out.append((node, tree.render_line(y).text))
    return out


async def wheel(pilot: object, event: type[events.MouseEvent], times: int) -> None:
    for _ in range(times):
        # as the terminal driver sends it: at a point over the tree, to the widget under it
        await pilot._post_mouse_events([event], ThreadTree, offset=(10, 3))  # type: ignore[attr-defined]


async def test_the_wheel_scrolls_the_tree_and_rows_come_into_view_drawn() -> None:
    app = environments_app()  # two copies of the showcase: more rows than a short window
    async with app.run_test(size=(110, 24)) as pilot:
        await settled(pilot)
        tree = app.query_one(ThreadTree)
        assert tree.max_scroll_y > 3
        selected = tree.selected_id
        before = {node.data for node, _ in on_screen(app, tree)}
        await wheel(pilot, events.MouseScrollDown, 3)
        await until(lambda: tree.scroll_offset.y >= 3, what="the wheel scrolled the tree")
        await pilot.pause()
        assert tree.selected_id == selected  # the wheel scrolls; it does not move the cursor
        lines = on_screen(app, tree)
        assert {node.data for node, _ in lines} - before, "no new rows came into view"
        for node, text in lines:
            row = app.view.row(node.data) if app.view else None
            assert row is not None and row.title[:6] in text, (node.data, text)
        await wheel(pilot, events.MouseScrollUp, 5)
        await until(lambda: tree.scroll_offset.y == 0, what="the wheel scrolled back up")
        assert tree.selected_id == selected


async def test_a_stale_environment_stays_dimmed_after_a_resize() -> None:
    app = environments_app()  # devbox reconnecting: its rows dimmed, laptop's not
    async with app.run_test(size=(150, 44)) as pilot:
        await settled(pilot)
        tree = app.query_one(ThreadTree)
        dim = tree.row_styles().dim

        def dimmed(node: RowNode) -> bool:
            label = node.label
            return any(s.start == 0 and s.end >= len(label.plain) and s.style == dim
                       for s in label.spans)

        def looks_right() -> bool:
            return all(dimmed(n) == t.startswith("devbox:") for t, n in tree.nodes.items())

        assert any(t.startswith("devbox:") for t in tree.nodes) and looks_right()
        await pilot.resize_terminal(120, 40)
        await until(lambda: tree.size.width < 100, what="the resize")
        await pilot.pause()
        assert looks_right()


async def test_the_environments_view_opens_at_the_top_of_the_tree() -> None:
    """The first tree arrives before the tree is laid out (with notifications on, as the app
    runs): placing the cursor on the first thread then scrolled a 0-row window to it, and the
    first environment's header stayed above the top."""
    app = environments_app()
    async with app.run_test(size=(150, 44), notifications=True) as pilot:
        await settled(pilot)
        await steady(pilot)
        tree = app.query_one(ThreadTree)
        assert tree.selected_id == "laptop:thread-review"  # the cursor starts on a thread
        assert tree.scroll_offset.y == 0
        assert tree.render_line(0).text.lstrip(" ▾▸").startswith("laptop")
