"""The first tree: what the app does once, not twice, when a big snapshot arrives, and that
the rows it shows are exactly the model's."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

from benchmarks.world import T0, WorldSpec, build_world
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.screenshots import NOW, settled, showcase_app
from t3tui.tui.sources.frames import FrameSource
from t3tui.tui.view.filters import RowFilter, visible_ids
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.waiting import until

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


async def test_a_class_or_focus_change_repaints_without_laying_the_tree_out_again() -> None:
    """The tree's `-stale` class (every first tree loses it when the connection turns live)
    and focus moving restyle the tree: its lines are painted again, in the new style, but
    none moves, so they are not laid out again (O(threads): Textual's Tree drops them on
    every style update, twice in a first tree)."""
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        tree = app.query_one(ThreadTree)
        lines = tree._tree_lines
        updates = tree._updates
        tree.set_class(True, "-stale")
        await pilot.pause()
        assert tree._tree_lines_cached is lines, "the lines were laid out again (class)"
        assert tree._updates > updates, "the painted lines were kept in the old style"
        tree.set_class(False, "-stale")
        app.set_focus(None)
        await pilot.pause()
        tree.focus()
        await pilot.pause()
        assert tree._tree_lines_cached is lines, "the lines were laid out again (focus)"
        assert tree.has_focus


async def test_a_new_height_repaints_without_laying_the_tree_out_again() -> None:
    """The banner above the tree comes and goes with the connection, and the terminal grows:
    the tree's height changes, its lines do not (Textual's Tree lays them all out again on
    every resize, O(threads), the first tree paid one as its banner went away). A new width
    does lay them out again, at that width."""
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        tree = app.query_one(ThreadTree)
        lines = tree._tree_lines
        height, width = tree.size.height, tree.size.width
        await pilot.resize_terminal(SIZE[0], SIZE[1] + 6)
        await until(lambda: tree.size.height > height, what="a taller tree")
        await pilot.pause()
        assert tree.size.width == width
        assert tree._tree_lines_cached is lines, "the lines were laid out again (height)"
        assert len(tree._tree_lines) == len(tree.nodes)
        await pilot.resize_terminal(SIZE[0] - 30, SIZE[1] + 6)
        await until(lambda: tree.size.width < width, what="a narrower tree")
        await pilot.pause()
        assert tree.virtual_size.width <= tree.scrollable_content_region.width

def _big_frames() -> list[dict]:
    """A 2,000-thread shell (20 delegation families, 5 busy threads) and the families'
    thread streams, each synchronized: what a big server's first answer holds."""
    world = build_world(WorldSpec(threads=2_000, events=0, active=5))
    frames: list[dict] = [{"stream": "shell", "item": world.shell_snapshot},
                          {"stream": "shell", "item": {"kind": "synchronized"}}]
    for thread_id, item in world.thread_snapshots.items():
        frames.append({"stream": "thread", "threadId": thread_id, "item": item})
        frames.append({"stream": "thread", "threadId": thread_id,
                       "item": {"kind": "synchronized"}})
    return frames


async def test_a_big_snapshot_shows_exactly_what_a_fresh_derivation_gives() -> None:
    """Every row the app shows after its first tree, its counts and findings, the problems
    only filter, a selected row and an expanded family equal the model's answer derived
    afresh from the same frames (ten minutes in: the busy children are stuck by then)."""
    frames = _big_frames()
    now = T0 + timedelta(minutes=10)
    reference = FrameSource(frames)
    reference.apply_all()
    fresh = reference.supervisor.view(now)
    assert len(fresh.rows) == 2_000 and fresh.findings  # the check below is not vacuous
    app = SupervisorApp(FrameSource(frames), config=TuiConfig(bell=False), clock=lambda: now,
                        tick=None)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(ThreadTree)
        await until(lambda: len(tree.nodes) == 2_000 and app.view is not None
                    and app.view.synchronized, what="the first tree")
        await pilot.pause()
        view = app.view
        assert view is not None
        assert view.rows == fresh.rows
        assert [r.child_counts for r in view.rows] == [r.child_counts for r in fresh.rows]
        assert view.counts == fresh.counts and view.findings == fresh.findings
        assert {i: n.row for i, n in tree.nodes.items()} == fresh.by_id

        stuck = next(r for r in fresh.rows if r.findings and r.parent_id)
        assert tree.select_thread(stuck.id)
        await pilot.pause()
        assert tree.selected_id == stuck.id and tree.cursor_node.row == stuck

        parent = fresh.by_id[stuck.parent_id]
        node = tree.nodes[parent.id]
        assert [c.data for c in node.children] == list(parent.children)
        node.collapse()
        await pilot.pause()
        node.expand()
        await pilot.pause()
        assert [c.data for c in node.children] == list(parent.children)
        assert all(tree.nodes[c].row == fresh.by_id[c] for c in parent.children)

        await pilot.press("p")
        problems = visible_ids(fresh, RowFilter(problems_only=True))
        assert problems is not None and 0 < len(problems) < 2_000
        assert {r.id for r in fresh.rows if r.findings} <= problems
        await until(lambda: set(tree.nodes) == problems, what="the problems-only tree")
        assert all(tree.nodes[i].row == fresh.by_id[i] for i in problems)


async def test_the_source_starts_before_the_screen_is_built() -> None:
    """Connecting (a handshake, the snapshot's transfer: time spent waiting on the server)
    overlaps the app's own start: the source runs before the screen is composed, and what it
    brings is shown once the screen is there."""
    started: list[int] = []

    class Watched(FrameSource):
        async def run(self) -> None:
            started.append(len(app.query(ThreadTree)))
            await super().run()

    app = SupervisorApp(Watched(_big_frames()[:2]), config=TuiConfig(bell=False), clock=lambda: NOW,
                        tick=None)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(ThreadTree)
        await until(lambda: len(tree.nodes) == 2_000, what="the tree")
        await pilot.pause()
    assert started == [0], "the source started after the screen was composed"


def test_building_the_tree_loads_no_emoji_table() -> None:
    """The tree's (hidden) root label is plain text: read as markup it made every fresh
    process load rich's table of emoji names (~4 ms) on the way to the first tree."""
    probe = ("import sys\n"
             "from t3tui.tui.widgets.thread_tree import ThreadTree\n"
             "from t3tui.tui.widgets.env_tree import EnvThreadTree\n"
             "assert 'rich._emoji_codes' not in sys.modules, 'loaded by an import'\n"
             "ThreadTree(id='tree'); EnvThreadTree(['a', 'b'], id='tree')\n"
             "print(sorted(m for m in sys.modules if m == 'rich._emoji_codes'))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert out.strip() == "[]", out
