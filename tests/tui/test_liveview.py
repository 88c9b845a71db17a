"""Patching a view with the rows the stream changed, and the full-view throttle (no app)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from t3tui.model import SupervisorView, changes
from t3tui.tui.screenshots import NOW, REVIEW, STUCK_CHILD
from t3tui.tui.sources.frames import FrameSource, load_frames
from t3tui.tui.view.liveview import Throttle, changes_among, patch_view, row_index


@pytest.fixture(scope="module")
def view() -> SupervisorView:
    source = FrameSource(load_frames("showcase"))
    source.apply_all()
    return source.supervisor.view(NOW)


def test_an_unchanged_row_keeps_the_view(view: SupervisorView) -> None:
    patch = patch_view(view, {REVIEW: view.row(REVIEW)}, NOW)
    assert patch.view is view and patch.changed == () and not patch.reshaped


def test_an_index_of_the_full_view_serves_every_later_patch(view: SupervisorView) -> None:
    index = row_index(view)
    stuck, review = view.row(STUCK_CHILD), view.row(REVIEW)
    assert stuck is not None and review is not None
    first = {STUCK_CHILD: replace(stuck, title="renamed once")}
    second = {REVIEW: replace(review, title="renamed too"),
              STUCK_CHILD: replace(stuck, title="renamed twice")}
    by_index = patch_view(patch_view(view, first, NOW, index).view, second, NOW, index)
    by_lookup = patch_view(patch_view(view, first, NOW).view, second, NOW)
    assert by_index.view.rows == by_lookup.view.rows
    assert {r.id: r.title for r in by_index.view.rows if r.id in second} == {
        REVIEW: "renamed too", STUCK_CHILD: "renamed twice"}
    assert [r.id for r in by_index.view.rows] == [r.id for r in view.rows]


def test_a_changed_row_is_swapped_in_with_counts_and_findings(view: SupervisorView) -> None:
    stuck = view.row(STUCK_CHILD)
    assert stuck is not None and stuck.findings
    calm = replace(stuck, state="running", findings=(), title="Ready check (calm)")
    patch = patch_view(view, {STUCK_CHILD: calm}, NOW)
    new = patch.view
    assert patch.changed == (calm,) and not patch.reshaped
    assert [r.id for r in new.rows] == [r.id for r in view.rows]  # tree order kept
    assert new.row(STUCK_CHILD) is calm and view.row(STUCK_CHILD) is stuck  # old view intact
    assert new.counts["stuck"] == view.counts["stuck"] - 1
    assert new.counts["running"] == view.counts["running"] + 1
    assert all(f.thread_id != STUCK_CHILD for f in new.findings)
    assert len(new.findings) == len(view.findings) - len(stuck.findings)
    assert new.synchronized == view.synchronized


def test_a_row_that_appears_vanishes_or_moves_needs_a_full_view(view: SupervisorView) -> None:
    review = view.row(REVIEW)
    assert review is not None
    assert patch_view(view, {REVIEW: None}, NOW).reshaped
    assert patch_view(view, {"thread-new": replace(review, id="thread-new")}, NOW).reshaped
    moved = patch_view(view, {REVIEW: replace(review, children=review.children[:1])}, NOW)
    assert moved.reshaped and moved.view.row(REVIEW) is review  # left for the full view
    assert not patch_view(view, {"thread-never-shown": None}, NOW).reshaped


def test_a_stale_row_makes_the_view_unsynchronized(view: SupervisorView) -> None:
    review = view.row(REVIEW)
    assert review is not None and view.synchronized
    stale = replace(review, overlays=(*review.overlays, "stale"))
    assert not patch_view(view, {REVIEW: stale}, NOW).view.synchronized


def test_changes_among_is_changes_for_those_rows(view: SupervisorView) -> None:
    stuck = view.row(STUCK_CHILD)
    assert stuck is not None
    patched = patch_view(view, {STUCK_CHILD: replace(stuck, state="done", findings=())},
                         NOW).view
    assert changes_among(view, patched, [STUCK_CHILD]) == changes(view, patched)
    assert changes_among(view, patched, [REVIEW]) == []


def test_throttle_keeps_full_views_to_a_share_of_the_loop() -> None:
    now = [10.0]
    throttle = Throttle(gap=4.0, clock=lambda: now[0])
    assert throttle.wait() == 0.0  # the first one runs at once
    throttle.record(10.0, 10.2)  # it took 0.2 s
    now[0] = 10.2
    assert throttle.wait() == pytest.approx(0.8)
    now[0] = 11.0
    assert throttle.wait() == 0.0
    throttle.record(11.0, 11.01)  # a cheap one: the smoothed cost comes down
    now[0] = 11.01
    assert throttle.wait() == pytest.approx(0.42)
