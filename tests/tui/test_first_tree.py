"""The first tree: what the app does once, not twice, when a big snapshot arrives, and that
the rows it shows are exactly the model's."""

from __future__ import annotations

from t3tui.tui.screenshots import NOW, settled, showcase_app
from t3tui.tui.widgets.thread_tree import ThreadTree

SIZE = (140, 40)


async def test_a_new_look_redraws_labels_without_laying_the_tree_out_again() -> None:
    """The tree turning stale or live (every first tree does, when the connection turns live
    after the snapshot) redraws each label as it is painted; the tree's lines (one per
    node, O(threads) to lay out) are the same lines and stay as they were."""
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        tree = app.query_one(ThreadTree)
        assert app.view is not None
        lines = tree._tree_lines
        line = 1 if tree.cursor_line == 0 else 0  # (the cursor's style covers the look)
        live = tree.render_line(line)
        generation = tree.look_generation
        tree.sync(app.view, NOW, stale=True)
        assert tree.look_generation == generation + 1
        assert tree._tree_lines_cached is lines, "the lines were laid out again"
        stale = tree.render_line(line)
        assert stale.text == live.text
        assert stale != live, "the label was not redrawn in the stale look"
        await pilot.pause()
        assert tree._tree_lines_cached is lines
