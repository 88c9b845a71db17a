"""A parent's change reaches its children's findings in the same frame.

Rules evaluated on a child read its parent's facts (`@declares(depends=("parent.x", ...))`).
An event on the parent alone (its run, its pending request, its title, a cohort's
disposition) must mark the child for re-derivation: after one `changed_rows(now)`, the
child's row as a screen holds it equals a fresh derivation (`Supervisor(incremental=False)`)
at the same `now`. Generic over the declarations: every `parent.*` fact some rule declares
needs a move below (a parent-only change of that fact that changes the child's findings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import pytest

from t3tui.model import Supervisor
from t3tui.model.assemble import Assembler
from t3tui.model.detectors.rules import RULES
from tests.model.factory import at, runtime_request, shell_row, subagent
from tests.model.factory import run as run_entity
from tests.model.replay import feed
from tests.model.timeline import Timeline
from tests.spy import calls

P, C, TASK = "thread-parent", "thread-child", "task-1"
NOW = 100.0  # past every dwell the families' findings wait for


def _parent_row(title: str = "Parent", **kw) -> dict:
    base = dict(status="completed", run="run-p1", requested=0, started=1, completed=5, updated=5)
    return shell_row(P, title, 0, **{**base, **kw})


_RUNNING = dict(status="running", activity="running", run="run-p2", requested=8, started=8,
                completed=None)
_WAITING = runtime_request("req-1", "approval", "pending", 6)


def _family(kind: str, parent: str) -> Timeline:
    """A parent and its delegated child. `kind` "delivered": the child finished at 10 and
    its result is still pending (undelivered_result fires unless the parent runs, waits or
    ran since); "live": the child still works for run-p1 (wake_disposed fires once that
    run's cohort is not open). `parent`: "idle", "running" (since 8, before the child
    finished) or "waiting" (on a runtime request its stream shows, no run)."""
    tl = Timeline(f"parent facts: {kind}, parent {parent}")
    tl.shell(_parent_row(**(_RUNNING if parent == "running" else {})))
    tl.subscribe(P)
    tl.event(P, "run.created", run_entity("run-p1", P, 1, "completed", 0, 1, 5), 5)
    if parent == "running":
        tl.event(P, "run.created", run_entity("run-p2", P, 2, "running", 8, 8), 8)
    if parent == "waiting":
        tl.event(P, "runtime-request.updated", _WAITING, 6)
    if kind == "delivered":
        tl.shell(shell_row(C, "Child", 1, parent=P, status="completed", run="run-c1",
                           requested=1, started=1, completed=10, updated=10))
        tl.event(P, "subagent.updated", subagent(TASK, P, "run-p1", C, "Child", wake=None,
                                                 status="completed", started=1, completed=10,
                                                 delivery="pending"), 10)
    else:
        tl.shell(shell_row(C, "Child", 1, parent=P, status="running", run="run-c1",
                           activity="running", requested=1, started=2, updated=10))
        tl.event(P, "subagent.updated", subagent(TASK, P, "run-p1", C, "Child", wake=None,
                                                 status="running", started=1, updated=10), 10)
    return tl


@dataclass(frozen=True)
class Move:
    """A change of the parent alone, made on a family (`kind`, `parent`)."""

    name: str
    kind: str
    parent: str
    apply: Callable[[Timeline], None]


def _shell(**kw) -> Callable[[Timeline], None]:
    return lambda tl: tl.shell(_parent_row(**{"updated": 99, **kw}))


def _event(etype: str, payload: dict) -> Callable[[Timeline], None]:
    return lambda tl: tl.event(P, etype, payload, 99)


def _both(*steps: Callable[[Timeline], None]) -> Callable[[Timeline], None]:
    def apply(tl: Timeline) -> None:
        for step in steps:
            step(tl)
    return apply


_ENDED = run_entity("run-p2", P, 2, "completed", 8, 8, 99)
_RESOLVED = runtime_request("req-1", "approval", "resolved", 6)

# parent fact -> the moves that change it (and with it the child's findings)
MOVES: dict[str, tuple[Move, ...]] = {
    "activity": (
        Move("its shell row: a run started", "delivered", "idle", _shell(**_RUNNING)),
        Move("its shell row: its run ended", "delivered", "running",
             _shell(run="run-p2", requested=8, started=8, completed=99)),
        Move("its run ended, then its shell row", "delivered", "running",
             _both(_event("run.updated", _ENDED),
                   _shell(run="run-p2", requested=8, started=8, completed=99))),
    ),
    "pending": (
        Move("a runtime request opened", "delivered", "idle",
             _event("runtime-request.updated", runtime_request("req-2", "approval", "pending", 99))),
        Move("its runtime request resolved", "delivered", "waiting",
             _event("runtime-request.updated", _RESOLVED)),
        Move("its shell row: a request pending", "delivered", "idle",
             _shell(pending=runtime_request("req-2", "approval", "pending", 99))),
    ),
    "latest_run_requested_at": (
        Move("its shell row: a run requested and done", "delivered", "idle",
             _shell(run="run-p2", requested=50, started=50, completed=51)),
        Move("a run requested and done", "delivered", "idle",
             _event("run.created", run_entity("run-p2", P, 2, "completed", 50, 50, 51))),
    ),
    "title": (
        Move("its shell row: renamed", "delivered", "idle", _shell(title="Parent renamed")),
    ),
    "cohorts": (
        Move("its run's cohort closed", "live", "idle",
             _event("run.updated", run_entity("run-p1", P, 1, "completed", 0, 1, 5,
                                               cohort="closed"))),
    ),
}


def _parent_deps() -> list[tuple[str, str]]:
    """(rule, parent fact) for every `parent.*` a rule declares."""
    return sorted({(rule.__name__, dep.partition(".")[2]) for rule, _ in RULES
                   for dep in rule.depends if dep.startswith("parent.")})


def test_every_parent_fact_a_rule_reads_has_a_move() -> None:
    deps = _parent_deps()
    assert deps, "no rule declares a parent fact: this test guards nothing"
    missing = sorted({fact for _, fact in deps} - MOVES.keys())
    assert not missing, f"no parent-only move changes {missing}: add one to MOVES"


def _cases() -> list:
    facts = {fact for _, fact in _parent_deps()}
    return [pytest.param(fact, move, id=f"{fact}: {move.name}")
            for fact in sorted(facts) for move in MOVES.get(fact, ())]


def _supervisors(frames: list) -> tuple[Supervisor, Supervisor]:
    inc, ref = Supervisor(), Supervisor(incremental=False)
    for sup in (inc, ref):
        feed(sup, frames)
    return inc, ref


@pytest.mark.parametrize(("fact", "move"), _cases())
@pytest.mark.parametrize("step", [0.0, 0.2])
def test_a_parent_only_change_reaches_the_childs_row_in_the_same_frame(fact, move, step) -> None:
    tl = _family(move.kind, move.parent)
    inc, ref = _supervisors(tl.frames)
    now = at(NOW)
    shown = {t: r for t, r in inc.changed_rows(now).items() if r is not None}
    assert shown.get(C) == ref.row(C, now), "the family's child disagrees before the move"
    before_row, before_fact = ref.row(C, now), getattr(ref._ix.own(P), fact)
    done = len(tl.frames)
    move.apply(tl)
    for sup in (inc, ref):
        feed(sup, tl.frames[done:])
    assert all(f.get("stream") == "shell" or f.get("threadId") == P for f in tl.frames[done:])
    assert getattr(ref._ix.own(P), fact) != before_fact, f"the move left parent.{fact} as it was"
    want = ref.row(C, now + timedelta(seconds=step))
    assert want is not None and before_row is not None
    assert want.findings != before_row.findings, "the move changed none of the child's findings"
    for thread_id, row in inc.changed_rows(now + timedelta(seconds=step)).items():
        shown[thread_id] = row
    got = shown.get(C)
    assert got is not None
    assert (got.state, got.findings) == (want.state, want.findings), \
        f"parent.{fact} ({move.name}) did not reach the child's row in the same frame"
    assert got == want


def test_a_parent_shell_update_children_do_not_read_derives_no_child_afresh(monkeypatch) -> None:
    """Cheaply: a parent's shell row moving only what no child reads of it (its update time,
    its preview: a running parent's row moves with every message) derives none of its
    children afresh; each child's row still equals a fresh derivation."""
    tl = _family("delivered", "running")
    for i in range(2, 6):  # more children, still working
        child = f"thread-child-{i}"
        tl.shell(shell_row(child, f"Child {i}", 1, parent=P, status="running", run=f"run-c{i}",
                           activity="running", requested=1, started=2, updated=10))
        tl.event(P, "subagent.updated", subagent(f"task-{i}", P, "run-p1", child, f"Child {i}",
                                                 wake=None, status="running", started=1,
                                                 updated=10), 10)
    inc, ref = _supervisors(tl.frames)
    now = at(NOW)
    inc.changed_rows(now)
    afresh: list[str] = calls(monkeypatch, Assembler, "row",
                              lambda self, thread_id, depth: thread_id)
    preview = {"id": "msg-9", "role": "assistant", "text": "still at it", "createdAt": None}
    for k in range(3):
        done = len(tl.frames)
        tl.shell(_parent_row(**{**_RUNNING, "updated": 90 + k, "message": preview}))
        for sup in (inc, ref):
            feed(sup, tl.frames[done:])
        afresh.clear()
        changed = inc.changed_rows(now)
        assert P in changed or k > 0
        children = [t for t in afresh if t != P]
        assert not children, f"a parent's update time derived {children} afresh"
        for thread_id, got in changed.items():
            assert got == ref.row(thread_id, now)
    for thread_id in inc._ix.children[P]:
        assert inc.row(thread_id, now) == ref.row(thread_id, now)
