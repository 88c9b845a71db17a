"""What an action acts on, pure, over the showcase's frames: the blocking child, the parent,
the order a tree is stopped in, and why an action does not apply."""

from __future__ import annotations

import pytest

from t3tui.actions import (
    blocking_children,
    interrupt_choices,
    parent_of,
    stop_targets,
    unavailable,
)
from t3tui.model import SupervisorView
from t3tui.tui.screenshots import NOW, REVIEW
from t3tui.tui.sources.frames import FrameSource, load_frames


@pytest.fixture(scope="module")
def view() -> SupervisorView:
    source = FrameSource(load_frames("showcase"))
    source.apply_all()
    return source.supervisor.view(NOW)


def titled(view: SupervisorView, title: str):
    return next(r for r in view.rows if r.title == title)


def test_the_blocking_child_is_the_one_whose_wait_is_open_on_the_parents_run(
        view: SupervisorView) -> None:
    review = view.row(REVIEW)
    # Reviewer A's wait returned; only B's is open on the parent's active run
    assert [c.title for c in blocking_children(view, review)] == ["Reviewer B"]
    # async children block no wait
    assert blocking_children(view, titled(view, "Fan out")) == []
    choices = interrupt_choices(view, review)
    assert [(c.key.split(":")[0], c.title) for c in choices] == [
        ("child", "Reviewer B"), ("run", "Review panel")]


def test_parent_of_a_child_and_of_a_root(view: SupervisorView) -> None:
    assert parent_of(view, titled(view, "Compile")).title == "Build"
    assert parent_of(view, titled(view, "Fan out")) is None


def test_a_tree_stops_deepest_first_and_only_active_runs(view: SupervisorView) -> None:
    targets = stop_targets(view, titled(view, "Fan out").id)
    titles = [t.title for t in targets]
    # Compile (depth 2) before its parent Build, every child before the root; Tests (done)
    # and Docs (creating, no run) are not stopped
    assert titles[0] == "Compile" and titles[-1] == "Fan out"
    assert set(titles) == {"Compile", "Build", "Migrate DB", "Lint", "Fan out"}
    assert titles.index("Compile") < titles.index("Build")
    assert all(t.run_id for t in targets)
    assert stop_targets(view, titled(view, "Scratch").id) == []


def test_why_an_action_does_not_apply(view: SupervisorView) -> None:
    assert unavailable("stop_tree", titled(view, "Scratch"), connected=True) == (
        "nothing is running in this subtree")
    # a settled parent whose child runs on: the tree can still be stopped
    assert unavailable("stop_tree", titled(view, "Orchestrator"), connected=True) is None
    assert unavailable("dispose", titled(view, "Scratch"), connected=True) == (
        "not a delegated child: it has no completion delivery")
    assert unavailable("interrupt", None, connected=True) == "no thread selected"
