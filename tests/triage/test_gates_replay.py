"""The cached action gates are the fresh ones after every frame of a replay: the replay
stepped and sought to each finding, findings appearing and clearing, rows selected as they
come (tests/tui/test_gates_fresh.py watches the live keys)."""

from __future__ import annotations

import pytest

from t3tui.tui.sources.replay import ReplaySource
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.triage.flows import LiveRun
from tests.triage.test_app_replay import SIZE, replay_app
from tests.tui.test_frame_cost import frame
from tests.tui.test_gates_fresh import Watch
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


async def test_the_cached_gates_are_the_fresh_ones_over_a_replay(
        seed004: LiveRun, monkeypatch: pytest.MonkeyPatch) -> None:
    app = replay_app(seed004.path)
    async with app.run_test(size=SIZE) as pilot:
        source: ReplaySource = app.source  # type: ignore[assignment]
        await until(lambda: source.opened and app.view and app.view.rows, what="first tree")
        watch = Watch(app, monkeypatch)
        tree = app.query_one(ThreadTree)
        assert app.view is not None
        counts = {len(app.view.findings)}  # none yet: the first tree comes before any flag
        for n in range(60):
            await pilot.press("f" if n % 3 == 0 else "n")
            await pilot.pause()
            assert app.view is not None
            rows = [row.id for row in app.view.rows]
            tree.select_thread(rows[n % len(rows)])  # the selection moves as the tree grows
            frame(app)
            counts.add(len(app.view.findings))
        assert len(counts) > 1, f"the findings never changed over the replay: {counts}"
        assert watch.frames >= 60
        assert watch.stale == [], "stale gates:\n" + "\n".join(watch.stale)
