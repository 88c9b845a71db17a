"""Every detector on recorded frame sequences, with the seed timelines and healthy controls."""

from __future__ import annotations

import pytest

from t3tui.model import DetectorConfig
from tests.model.factory import task_ids
from tests.model.replay import supervisor, sweep, view_at

A_TASK, A_CHILD = task_ids("probe-a")
B_TASK, B_CHILD = task_ids("probe-b")
READY_TASK, READY_CHILD = task_ids("ready-1")
P = "thread-parent"


def rules(view, thread_id):
    row = view.row(thread_id)
    assert row is not None, f"{thread_id} not shown"
    return [f.rule for f in row.findings]


# -- healthy controls: no finding, ever --------------------------------------------------------

HEALTHY = {
    "slow_progress": range(0, 1300, 20),
    "approval": range(0, 2400, 60),
    "overlapping_async": range(0, 400, 5),
    "parallel_waits": range(0, 200, 2),
    "seed004_healthy": range(0, 400, 5),
}


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_control_never_flags(name):
    for t, view in sweep(name, [float(s) for s in HEALTHY[name]]):
        assert view.findings == (), f"{name} at t={t}: {view.findings}"
        assert view.exit_code == 0


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_control_never_flags_from_snapshots(name):
    assert view_at(supervisor(name, fresh=True), HEALTHY[name][-1]).findings == ()


@pytest.mark.parametrize("name", ["overlapping_async", "seed004_healthy"])
def test_finished_work_stays_unflagged_a_day_later(name):
    for fresh in (False, True):
        assert view_at(supervisor(name, fresh=fresh), 86_400).findings == ()


def test_slow_child_is_running_and_parent_waits():
    view = view_at(supervisor("slow_progress"), 1200)
    child = view.rows[1]
    assert (child.state, child.depth) == ("running", 1)
    assert view.rows[0].state == "waiting"
    assert view.rows[0].state_reason == "waiting (1 child)"


def test_child_waiting_on_approval_needs_input_and_bubbles_up():
    view = view_at(supervisor("approval"), 2000)
    parent, child = view.rows
    assert child.state == "needs-input"
    assert child.pending_request is not None and child.pending_request.id == "rr-1"
    assert parent.child_counts == {"needs-input": 1}
    assert view.counts["needs-input"] == 1


def test_overlapping_async_children_parent_waits_then_all_done():
    mid = view_at(supervisor("overlapping_async", until="both-running"), 30)
    assert mid.rows[0].state_reason == "waiting (2 children)"
    end = view_at(supervisor("overlapping_async"), 200)
    assert [r.state for r in end.rows] == ["idle", "done", "done"]
    assert all(r.task and r.task.delivery == "delivered" for r in end.rows[1:])


# -- seed 000: batched wait calls run one at a time ----------------------------------------------

def test_seed000_phantom_while_second_call_is_held_back():
    view = view_at(supervisor("seed000_serialized", until="mid-wait"), 45)
    assert rules(view, P) == ["claimed-not-real"]
    finding = view.findings[0]
    assert finding.kind == "phantom_child"
    (claim,) = finding.evidence["claims"]
    assert (claim["claimed"], claim["taskRows"], claim["missingNames"]) == (2, 1, ["probe-b"])
    assert "probe-b" in finding.reason
    assert view.row(P).state == "waiting" and view.row(P).state_reason == "waiting on Probe A"


def test_seed000_phantom_respects_grace():
    view = view_at(supervisor("seed000_serialized", until="mid-wait"), 20)
    assert view.findings == ()


def test_seed000_serialized_wait_flagged_once_second_arrives():
    view = view_at(supervisor("seed000_serialized", until="after-first-return"), 62)
    assert rules(view, P) == ["serial-arrival"]
    finding = view.findings[0]
    assert finding.kind == "serialized_wait"
    pair = finding.evidence["pairs"][0]
    assert pair["previousTaskId"] == A_TASK and pair["nextTaskId"] == B_TASK
    assert pair["previousWaitResult"] == "timed_out"
    assert 0 <= pair["gapSeconds"] <= 1
    assert view.row(A_CHILD).findings == () and view.row(B_CHILD).findings == ()


def test_seed000_serialized_seen_by_a_fresh_client():
    view = view_at(supervisor("seed000_serialized", fresh=True), 130)
    assert [f.kind for f in view.findings] == ["serialized_wait"]
    assert view.exit_code == 1


def test_parallel_waits_not_flagged_even_after_both_time_out():
    view = view_at(supervisor("parallel_waits"), 130)
    assert view.findings == ()
    assert view_at(supervisor("parallel_waits", until="mid-wait"), 45).row(P).state_reason == \
        "waiting on Probe A (+1)"


def test_serial_window_is_configurable():
    tight = DetectorConfig(serial_tolerance_s=0.0, serial_window_s=0.0)
    assert view_at(supervisor("seed000_serialized", config=tight), 130).findings == ()


# -- seed 004: settle the parent, the shared-session child's check-in run hangs ----------------

def test_seed004_child_flagged_stuck_after_dwell_and_nothing_else():
    sup = supervisor("seed004_detached")
    before = view_at(sup, 135)
    assert before.findings == ()
    assert before.row(READY_CHILD).state == "running"
    view = view_at(sup, 141)
    assert [(f.kind, f.thread_id, f.rule) for f in view.findings] == \
        [("stuck", READY_CHILD, "session-detached-by-other")]
    child = view.row(READY_CHILD)
    assert child.state == "stuck" and "ps-1" in child.state_reason
    evidence = view.findings[0].evidence
    assert evidence["detachedByThreadId"] == P and evidence["detachReason"] == "Thread settled."
    parent = view.row(P)
    # a settled parent whose own run is over reads as settled, and says its child still runs
    assert parent.settled and parent.state == "settled" and "settled" in parent.overlays
    assert parent.state_reason == "settled · 1 child still running"


def test_seed004_fresh_client_infers_the_detach_from_the_settle():
    view = view_at(supervisor("seed004_detached", fresh=True), 141)
    assert [(f.thread_id, f.rule) for f in view.findings] == [(READY_CHILD, "session-detached-by-other")]
    assert view.findings[0].evidence["inferred"] is True


def test_seed004_before_the_checkin_nothing_is_flagged():
    for until in ("before-settle", "after-settle"):
        assert view_at(supervisor("seed004_detached", until=until), 600).findings == ()


# -- each stuck / delivery rule -----------------------------------------------------------------

@pytest.mark.parametrize(("thread", "rule", "quiet", "flagged"), [
    ("t1", "provider-finished-run-running", 29, 31),
    ("t2", "drain-too-long", 69, 71),
    ("t3", "no-progress", 244, 246),
    ("t4", "provider-session-stopped", 24, 26),
])
def test_stuck_rule_fires_only_past_its_threshold(thread, rule, quiet, flagged):
    sup = supervisor("stuck_rules")
    assert rule not in rules(view_at(sup, quiet), thread)
    view = view_at(sup, flagged)
    assert rule in rules(view, thread)
    assert view.row(thread).state == "stuck"
    finding = next(f for f in view.row(thread).findings if f.rule == rule)
    assert finding.kind == "stuck" and finding.reason and finding.evidence


def test_stuck_findings_ranked_strongest_first():
    view = view_at(supervisor("stuck_rules"), 300)
    assert rules(view, "t1")[0] == "provider-finished-run-running"
    ranks = [f.rank for f in view.findings]
    assert ranks == sorted(ranks)


def test_undelivered_result_on_the_child():
    _, child = task_ids("undelivered-5")
    sup = supervisor("stuck_rules")
    assert rules(view_at(sup, 79), child) == []
    view = view_at(sup, 81)
    assert rules(view, child) == ["undelivered-result"]
    assert view.row(child).state == "done"
    assert view.row(child).state_reason == "done · not yet seen by parent"
    assert view.row("p5").state_reason == "waiting (1 undelivered result)"


def test_wake_disposed_while_child_runs_is_an_orphaned_delivery():
    _, child = task_ids("orphan-6")
    view = view_at(supervisor("stuck_rules"), 30)
    assert rules(view, child) == ["wake-disposed-while-running"]
    row = view.row(child)
    assert row.state == "running" and "orphaned-delivery" in row.overlays
    assert view.row(child).findings[0].evidence["cohortDisposition"] == "stopped"


def test_thresholds_come_from_config():
    lenient = DetectorConfig(no_progress_s=600, provider_finished_dwell_s=600)
    view = view_at(supervisor("stuck_rules", config=lenient), 300)
    assert rules(view, "t3") == [] and rules(view, "t1") == []


def _event(seq, thread, etype, payload, t):
    from tests.model.factory import iso

    return {"kind": "event", "sequence": seq, "event": {
        "id": f"e{seq}", "threadId": thread, "occurredAt": iso(t), "type": etype, "payload": payload}}


def _rerun_parent(session: str):
    from tests.model import factory as f

    sup = supervisor("seed004_detached", until="after-settle")
    sup.apply_shell({"kind": "thread.updated", "sequence": 49_999, "location": "active", "thread": f.shell_row(
        P, "Orchestrator", 0, status="running", activity="running", run="run-p2", requested=200,
        started=200, updated=200, settled_at=100)})
    items = [
        ("provider-session.attached", f.provider_session(session, "running", 200)),
        ("run.created", f.run("run-p2", P, 2, "running", 200, 200, pthread="pt-p")),
        ("provider-thread.updated", f.provider_thread("pt-p", P, session, "active", 200)),
    ]
    for i, (etype, payload) in enumerate(items):
        sup.apply_thread(P, _event(50_000 + i, P, etype, payload, 200))
    return view_at(sup, 215)


def test_settled_parent_rerun_on_a_new_session_is_not_flagged_by_the_old_detach():
    view = _rerun_parent("ps-2")
    assert view.row(P).state == "running"
    assert rules(view, P) == []


def test_rerun_on_the_detached_session_without_reattach_is_flagged():
    from tests.model import factory as f

    sup = supervisor("seed004_detached", until="after-settle")
    sup.apply_shell({"kind": "thread.updated", "sequence": 49_999, "location": "active", "thread": f.shell_row(
        P, "Orchestrator", 0, status="running", activity="running", run="run-p2", requested=200,
        started=200, updated=200, settled_at=100)})
    sup.apply_thread(P, _event(50_000, P, "run.created",
                               f.run("run-p2", P, 2, "running", 200, 200, pthread="pt-p"), 200))
    assert rules(view_at(sup, 215), P) == ["session-detached-by-other"]
    assert _rerun_parent("ps-1").row(P).findings == ()  # re-attached after the detach


def test_phantom_from_an_explicit_task_id_and_not_from_a_failed_call():
    from tests.model import factory as f

    ghost_task, _ = task_ids("ghost-1")
    sup = supervisor("seed000_serialized", until="mid-wait")
    text = f"Child {ghost_task} is reviewing the API."
    sup.apply_thread(P, _event(60_000, P, "message.updated",
                               f.message("m-ghost", P, "run-p1", "assistant", text, 2), 2))
    failed = f.turn_item("tool-x", P, "run-p1", "dynamic_tool", 3, 4, status="failed", completed=4,
                         toolName="delegate_task", input='{"clientRequestId": "never-1", "mode": "wait"}',
                         output='{"_tag": "OrchestratorMcpFailure", "code": "parent_not_active"}')
    sup.apply_thread(P, _event(60_001, P, "turn-item.updated", failed, 4))
    finding = next(x for x in view_at(sup, 45).findings if x.kind == "phantom_child")
    assert [m["id"] for m in finding.evidence["missing"]] == [ghost_task]
    assert "never-1" not in finding.reason


def test_claimed_delivery_is_flagged_only_after_the_longer_dwell():
    from tests.model import factory as f

    task5, child = task_ids("undelivered-5")
    sup = supervisor("stuck_rules")
    row = f.subagent(task5, "p5", "run-p5", child, "Finished child", wake="always", status="completed",
                     started=2.0, completed=20, updated=21, delivery="claimed")
    sup.apply_thread("p5", _event(70_000, "p5", "subagent.updated", row, 21))
    assert rules(view_at(sup, 81), child) == []
    view = view_at(sup, 321)
    assert rules(view, child) == ["undelivered-result"]
    assert view.row(child).findings[0].evidence["delivery"] == "claimed"


def _wait_task(name: str, started: float, returned: float):
    from datetime import UTC, datetime, timedelta

    from t3tui.model.facts import TaskFacts

    t0 = datetime(2026, 10, 21, 23, 58, 54, tzinfo=UTC)
    return TaskFacts(
        task_id=f"task-{name}", parent_id=P, child_thread_id=f"child-{name}", run_id="run-p",
        title=name, origin="app_owned", status="running", delivery=None, wake="always",
        mode="wait", timeout_ms=None, started_at=t0 + timedelta(seconds=started),
        completed_at=None, updated_at=None, flipped_at=None,
        return_at=t0 + timedelta(seconds=returned), budget_at=None, published=False,
        client_request_id=name)


def test_a_short_wait_does_not_make_a_late_parallel_sibling_look_serial():
    """Two 3 s waits sent together, B 1.2 s late (a loaded machine): not serialized. With the
    2 s tolerance alone B would count as arriving when A returned."""
    from t3tui.model.detectors.serialized import serial_pairs

    config = DetectorConfig()
    a = _wait_task("a", started=0.0, returned=3.0)
    late_parallel = _wait_task("b", started=1.2, returned=4.2)
    assert serial_pairs((a, late_parallel), config) == []
    # the seed timeline (B 18 ms after A's 10 s wait returned) is still flagged
    a10 = _wait_task("a", started=0.0, returned=10.07)
    serial = _wait_task("b", started=10.088, returned=20.14)
    assert serial_pairs((a10, serial), config) == [(a10, serial)]
    # and a B that arrives just before a long wait returns is still within the tolerance
    just_before = _wait_task("b", started=9.0, returned=19.0)
    assert serial_pairs((a10, just_before), config) == [(a10, just_before)]
