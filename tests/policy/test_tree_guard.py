"""Judge the tree, not one thread (T3 #5518): a parent whose own run paused or went quiet while
a descendant still works is never checked in on, interrupted or notified about by a policy;
it is journaled once as held, and acted on once the descendant is done. Findings a busy child
does not explain (a stop that did not land) are not held."""

from datetime import UTC, datetime, timedelta

from t3tui.model import ThreadRow
from t3tui.model.findings import STUCK, Finding
from t3tui.policy import Journal, Occurrences, PolicySet, Situation, decide, parse_text, recommended
from t3tui.policy.engine import Engine
from t3tui.policy.tree import Tree

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
LIVE = Situation(live=True, synchronized=True)
CHECKIN = parse_text('[[policy]]\nwhen = "no-progress"\nafter = "1m"\ndo = "checkin"\n'
                     '[[policy]]\nwhen = "no-progress"\nafter = "1m"\ndo = "notify"\n'
                     'notify = { command = ["true"] }\n'
                     '[[policy]]\nwhen = "interrupt-not-landed"\nafter = "1m"\n'
                     'do = "force-stop"\n', "f")


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def row(tid: str, state: str, *, children: tuple[str, ...] = (), parent: str | None = None,
        title: str = "", findings: tuple[Finding, ...] = ()) -> ThreadRow:
    return ThreadRow(
        id=tid, title=title or tid, parent_id=parent, depth=0 if parent is None else 1,
        children=children, state=state, state_reason=state, state_since=at(0), settled=False,
        run_status=None, activity_run_status=None, active_run_id=None, run_started_at=None,
        provider=None, model=None, origin=None, creation_source=None, location="active",
        orphan=False, task=None, pending_request=None, latest_message=None,
        last_activity_at=None, overlays=(), child_counts={}, findings=findings)


def quiet(thread: str = "parent", rule: str = "no-progress") -> Finding:
    return Finding(STUCK, thread, rule, "running with no progress", {}, at(0))


def unheard(thread: str = "parent") -> Finding:
    return Finding("provider_finished_unheard", thread, "provider-finished-unheard",
                   "the provider finished", {}, at(0))


class Watch:
    """decide() over a tree of rows, one view after another."""

    def __init__(self, policies: PolicySet) -> None:
        self.policies, self.occ, self.journal, self.tree = policies, Occurrences(), Journal(), Tree()
        self.occ.start(at(0))

    def view(self, seconds: float, rows: list[ThreadRow]) -> list[tuple[int, str, str, str]]:
        self.tree.update({r.id: r for r in rows})
        findings = [f for r in rows for f in r.findings]
        seen = self.occ.update(findings, at(seconds))
        out = decide(self.policies, seen, at(seconds), LIVE, {}, self.journal, {},
                     self.tree.busy_below)
        return [(d.policy, d.thread_id, d.verdict, d.code) for d in out]


def family(child_state: str, finding: Finding) -> list[ThreadRow]:
    return [row("parent", "running", children=("child",), title="Fan out",
                findings=(finding,)),
            row("child", child_state, parent="parent", title="Worker")]


def test_a_quiet_parent_whose_child_still_runs_is_never_touched_by_a_policy() -> None:
    w = Watch(CHECKIN)
    assert w.view(1, family("running", quiet())) == []
    held = w.view(61, family("running", quiet()))
    assert held == [(1, "parent", "skip", "child-running"), (2, "parent", "skip", "child-running")]
    [first, _] = list(w.journal)
    assert first.line() == ("by policy 1: skipped checkin (no-progress): "
                            "its child “Worker” is still running")
    for t in (62, 300, 3600):  # held, not given up on, and said once
        assert w.view(t, family("running", quiet())) == []
        assert w.view(t, family("waiting", quiet())) == []
    assert [d.verdict for d in w.journal] == ["skip", "skip"]
    # the child is done: nothing explains the quiet parent any more
    assert w.view(3601, family("done", quiet())) == [(1, "parent", "act", "due"),
                                                     (2, "parent", "act", "due")]


def test_a_grandchild_at_work_holds_the_grandparent_too() -> None:
    w = Watch(recommended())
    rows = [row("parent", "running", children=("child",), findings=(unheard(),)),
            row("child", "waiting", parent="parent", children=("grand",)),
            row("grand", "running", parent="child", title="Deep work")]
    w.view(1, rows)
    assert w.view(40, rows) == [(1, "parent", "skip", "child-running")]
    assert [d.why for d in w.journal] == ["its child “child” is still waiting"]
    rows[1] = row("child", "done", parent="parent", children=("grand",))
    w.view(41, rows)
    w2 = Watch(recommended())
    w2.view(1, rows)
    assert w2.view(40, rows) == [(1, "parent", "skip", "child-running")]
    assert [d.why for d in w2.journal] == ["its descendant “Deep work” is still running"]


def test_a_stuck_or_settled_child_does_not_hold_its_parent() -> None:
    for state in ("stuck", "done", "settled", "idle"):
        w = Watch(CHECKIN)
        w.view(1, family(state, quiet()))
        assert w.view(61, family(state, quiet())) == [(1, "parent", "act", "due"),
                                                      (2, "parent", "act", "due")], state


def test_a_stop_that_did_not_land_is_not_explained_by_a_busy_child() -> None:
    w = Watch(CHECKIN)
    w.view(1, family("running", quiet(rule="interrupt-not-landed")))
    assert w.view(61, family("running", quiet(rule="interrupt-not-landed"))) == [
        (3, "parent", "act", "due")]


async def test_the_engine_keeps_the_tree_from_the_rows_it_is_fed() -> None:
    emitted = []
    engine = Engine(CHECKIN, clock=lambda: at(0), emit=emitted.append)
    engine.start(at(0))
    engine.seed(family("running", quiet()))
    engine.tick(None, at(1), live=True, synchronized=True)  # type: ignore[arg-type]
    decisions = engine.tick(None, at(61), live=True, synchronized=True)  # type: ignore[arg-type]
    await engine.stop()
    assert [(d.verdict, d.code) for d in decisions] == [("skip", "child-running")] * 2
    assert engine.running == 0
