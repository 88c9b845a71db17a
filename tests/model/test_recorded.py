"""The detectors on frames recorded from the reference backend over a real socket
(`python -m tests.model.frames.record`): seed 000's probe and seed 004's settle."""

from __future__ import annotations

from datetime import timedelta

from tests.model.replay import recorded


def kinds(view):
    return [(f.kind, view.row(f.thread_id).depth) for f in view.findings]


def test_serial_dispatch_is_flagged_on_the_parent():
    sup, end = recorded("recorded_serial_waits", "end")
    view = sup.view(end)
    assert kinds(view) == [("serialized_wait", 0)]
    pair = view.findings[0].evidence["pairs"][0]
    assert pair["previousTitle"].endswith(" a") and pair["nextTitle"].endswith(" b")
    assert pair["previousWaitResult"] == "timed_out"
    assert view.exit_code == 1


def test_parallel_dispatch_is_not_flagged():
    sup, end = recorded("recorded_parallel_waits", "end")
    for later in (0, 15):
        assert sup.view(end + timedelta(seconds=later)).findings == ()


def test_settle_fault_flags_only_the_child_stuck_by_the_checkin_deadline():
    sup, settled = recorded("recorded_settle_fault", "after-settle")
    assert sup.view(settled).findings == ()
    sup, deadline = recorded("recorded_settle_fault", "checkin-unanswered")
    view = sup.view(deadline)
    assert [(f.kind, f.rule) for f in view.findings] == [("stuck", "session-detached-by-other")]
    child = view.row(view.findings[0].thread_id)
    assert child.depth == 1 and child.state == "stuck"
    assert view.rows[0].settled and view.rows[0].findings == ()


def test_settle_without_the_fault_stays_clean():
    sup, end = recorded("recorded_settle_healthy", "end")
    for later in (0, 30, 3600):
        view = sup.view(end + timedelta(seconds=later))
        assert view.findings == ()
    assert [r.state for r in sup.view(end).rows] == ["settled", "done"]
