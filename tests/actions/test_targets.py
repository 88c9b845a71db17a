"""What an action acts on, pure, over the showcase's frames: the blocking child, the parent,
the order a tree is stopped in, and why an action does not apply."""

from __future__ import annotations

from dataclasses import replace

import pytest

from t3tui.actions import (
    blocking_children,
    interrupt_choices,
    parent_of,
    stop_targets,
    stoppable_run,
    tree_stoppable,
    unavailable,
)
from t3tui.model import Finding, SupervisorView
from t3tui.model.findings import RUNAWAY_PROVIDER
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
    def stop_tree(title: str) -> str | None:
        row = titled(view, title)
        return unavailable("stop_tree", row, connected=True,
                           stoppable_below=tree_stoppable(view, row.id))

    assert stop_tree("Scratch") == "nothing is running in this subtree"
    # a settled parent whose child runs on: the tree can still be stopped
    assert stop_tree("Orchestrator") is None
    assert unavailable("dispose", titled(view, "Scratch"), connected=True) == (
        "not a delegated child: it has no completion delivery")
    assert unavailable("interrupt", None, connected=True) == "no thread selected"


def test_a_runaway_is_offered_the_forced_stop_alone_and_an_interrupt_names_it(
        view: SupervisorView) -> None:
    done = titled(view, "Tests")  # a run that ended: nothing to stop
    assert done.active_run_id is None
    assert interrupt_choices(view, done) == [] and stoppable_run(done) is None
    for action in ("interrupt", "run_interrupt", "force_stop"):
        assert unavailable(action, done, connected=True) == "no active run to interrupt"
    # the same thread once its interrupted run's provider ran on (T3 #5587)
    runaway = replace(done, findings=(Finding(
        RUNAWAY_PROVIDER, done.id, "provider-active-after-interrupt", "runs on",
        {"runId": "run-9"}),))
    [choice] = interrupt_choices(view, runaway)
    assert (choice.key, choice.run_id) == (f"force:{done.id}", "run-9")
    assert "other threads sharing that session lose it too" in choice.consequence
    assert stoppable_run(runaway) == "run-9"
    assert unavailable("interrupt", runaway, connected=True) is None  # the app's key
    assert unavailable("force_stop", runaway, connected=True) is None
    refusal = unavailable("run_interrupt", runaway, connected=True)
    assert refusal is not None and "run-9" in refusal and "forced stop" in refusal
