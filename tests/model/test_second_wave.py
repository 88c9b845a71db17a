"""The second-wave rules and state wording (issue 10), each with a healthy control.

Frames are built in memory with the fixture timeline (t3-protocol.md §9.3 event order); the
end-to-end versions against the reference backend are in tests/headless/test_second_wave_e2e.py.
"""

from __future__ import annotations

from t3tui.model import DetectorConfig, Supervisor
from tests.model import factory as f
from tests.model.frames.generate import begin_run, delegate, end_run
from tests.model.replay import feed
from tests.model.timeline import Timeline

P = "thread-parent"


def sup_of(tl: Timeline, config: DetectorConfig | None = None) -> Supervisor:
    sup = Supervisor(config)
    feed(sup, tl.frames)
    return sup


def running_thread(title: str = "Worker") -> Timeline:
    tl = Timeline("one running thread")
    tl.shell(f.shell_row(P, title, 0, status="running", activity="running", run="run-p1",
                         requested=0, started=0))
    tl.subscribe(P)
    begin_run(tl, P, "run-p1", 0, "pt-p", "sess-p")
    return tl


def interrupt_request(tl: Timeline, t: float) -> None:
    tl.event(P, "turn-item.updated", f.turn_item("item-stop", P, "run-p1", "run_interrupt_request",
                                                 t, t, message="t3tui: user interrupt"), t, "run-p1")


# -- interrupt-not-landed --

def test_stop_that_never_lands_is_stuck_after_the_dwell():
    tl = running_thread()
    interrupt_request(tl, 10)
    sup = sup_of(tl)
    assert not sup.view(f.at(29)).findings  # within the 20 s dwell: nothing yet
    view = sup.view(f.at(31))
    [finding] = view.findings
    assert (finding.kind, finding.rule) == ("stuck", "interrupt-not-landed")
    assert finding.evidence["requestedBy"] == "t3tui: user interrupt"
    assert finding.evidence["runId"] == "run-p1" and finding.evidence["requestedAt"] == f.iso(10)
    assert view.row(P).state == "stuck" and "no interrupt result" in view.row(P).state_reason


def test_slow_interrupt_that_lands_at_15s_never_fires():
    tl = running_thread()
    interrupt_request(tl, 10)
    tl.event(P, "turn-item.updated", f.turn_item("item-stopped", P, "run-p1", "run_interrupt_result",
                                                 25, 25, message="Run interrupted."), 25, "run-p1")
    tl.event(P, "provider-turn.updated", f.provider_turn("turn-run-p1", "run-p1", "pt-p", "interrupted", 0, 25),
             25, "run-p1")
    tl.event(P, "run.updated", f.run("run-p1", P, 1, "interrupted", 0, 0, 25, "pt-p", "stopped"), 25, "run-p1")
    tl.event(P, "provider-thread.updated", f.provider_thread("pt-p", P, "sess-p", "idle", 25), 25)
    tl.shell(f.shell_row(P, "Worker", 0, status="interrupted", run="run-p1", requested=0, started=0,
                         completed=25, updated=25))
    sup = sup_of(tl)
    for t in (24, 40, 400):
        assert not sup.view(f.at(t)).findings, t


def test_an_interrupt_this_client_sent_counts_without_a_request_item():
    sup = sup_of(running_thread())
    sup.record_interrupt(P, "run-p1", f.at(10))
    assert [x.rule for x in sup.view(f.at(31)).findings] == ["interrupt-not-landed"]
    assert sup.view(f.at(31)).findings[0].evidence["requestedBy"] == "this t3tui (command accepted)"
    sup.record_interrupt(P, "run-other", f.at(10))  # a stop of another run says nothing here
    assert not sup.view(f.at(31)).findings


# -- provider-active-after-interrupt --

def interrupted_run(tl: Timeline, t: float, *, turn: str, thread: str) -> None:
    tl.event(P, "provider-turn.updated", f.provider_turn("turn-run-p1", "run-p1", "pt-p", turn, 0,
                                                         None if turn == "running" else t), t, "run-p1")
    tl.event(P, "run.updated", f.run("run-p1", P, 1, "interrupted", 0, 0, t, "pt-p", "stopped"), t, "run-p1")
    tl.event(P, "provider-thread.updated", f.provider_thread("pt-p", P, "sess-p", thread, t), t)
    tl.shell(f.shell_row(P, "Worker", 0, status="interrupted", run="run-p1", requested=0, started=0,
                         completed=t, updated=t))


def test_provider_still_running_after_interrupt_is_flagged_and_says_cpu():
    tl = running_thread()
    interrupt_request(tl, 10)
    interrupted_run(tl, 10, turn="running", thread="active")
    sup = sup_of(tl)
    assert not sup.view(f.at(24)).findings
    view = sup.view(f.at(26))
    [finding] = view.findings
    assert (finding.kind, finding.rule) == ("runaway_provider", "provider-active-after-interrupt")
    assert "CPU" in finding.reason
    assert finding.evidence["stillActive"] == ["provider turn turn-run-p1 running",
                                               "provider thread pt-p active",
                                               "provider session sess-p running"]
    assert "runaway" in view.row(P).overlays


def test_provider_that_winds_down_within_the_dwell_is_not_flagged():
    tl = running_thread()
    interrupt_request(tl, 10)
    interrupted_run(tl, 10, turn="running", thread="active")
    tl.event(P, "provider-turn.updated", f.provider_turn("turn-run-p1", "run-p1", "pt-p", "interrupted", 0, 14),
             14, "run-p1")
    tl.event(P, "provider-thread.updated", f.provider_thread("pt-p", P, "sess-p", "idle", 14), 14)
    sup = sup_of(tl)
    for t in (26, 100):
        assert not sup.view(f.at(t)).findings


# -- duplicate-child --

def wait_call(tl: Timeline, item: str, t: float, done: float | None, task_id: str | None,
              *, mode: str = "wait", failed: bool = False) -> None:
    extra = {"toolName": "delegate_task",
             "input": {"mode": mode, "title": "Audit", "task": "Audit the repo"}}
    if task_id is not None:
        extra["output"] = {"taskId": task_id, "status": "running"}
    status = "running" if done is None else ("failed" if failed else "completed")
    tl.event(P, "turn-item.updated", f.turn_item(item, P, "run-p1", "dynamic_tool", t,
                                                 done if done is not None else t, status=status,
                                                 completed=done, **extra), t, "run-p1")


def audit_child(tl: Timeline, crid: str, t: float, wake: str) -> str:
    task, _child = delegate(tl, crid, "Audit", t, wake, pthread=f"pt-{crid}")
    # the server records the task text as the row's prompt
    tl.event(P, "subagent.updated", {**f.subagent(task, P, "run-p1", _child, "Audit", wake=wake,
                                                  status="running", started=t),
                                     "prompt": "Audit the repo"}, t, "run-p1")
    return task


def test_redelegation_after_a_dead_wait_is_a_duplicate_child():
    tl = running_thread("Orchestrator")
    wait_call(tl, "tool-1", 1, None, None)
    first = audit_child(tl, "uuid-1", 1, "settled_only")
    wait_call(tl, "tool-1", 1, 301, None, failed=True)       # the client gave up at 300 s
    wait_call(tl, "tool-2", 345, None, None)
    again = audit_child(tl, "uuid-2", 345, "settled_only")
    view = sup_of(tl).view(f.at(350))
    [finding] = [x for x in view.findings if x.rule == "duplicate-child"]
    assert finding.kind == "duplicate_child" and finding.thread_id == P
    ev = finding.evidence
    assert (ev["firstTaskId"], ev["duplicateTaskId"], ev["deadWaitItemId"]) == (first, again, "tool-1")
    assert ev["firstCreatedAt"] == f.iso(1) and ev["duplicateCreatedAt"] == f.iso(345)
    assert ev["deadWaitEndedAt"] == f.iso(301) and ev["matchedBy"] == "title and task"
    assert "duplicate" in view.row(P).overlays


def test_same_title_children_made_on_purpose_in_parallel_async_calls_are_not_duplicates():
    tl = running_thread("Orchestrator")
    a = audit_child(tl, "uuid-1", 1, "always")
    b = audit_child(tl, "uuid-2", 1.2, "always")
    wait_call(tl, "tool-1", 1, 1.01, a, mode="async")
    wait_call(tl, "tool-2", 1.2, 1.21, b, mode="async")
    assert not [x for x in sup_of(tl).view(f.at(400)).findings if x.rule == "duplicate-child"]


def test_a_wait_that_returned_its_task_id_then_a_deliberate_rerun_is_not_a_duplicate():
    tl = running_thread("Orchestrator")
    first = audit_child(tl, "uuid-1", 1, "settled_only")
    wait_call(tl, "tool-1", 1, 60, first)
    audit_child(tl, "uuid-2", 70, "settled_only")
    assert not [x for x in sup_of(tl).view(f.at(400)).findings if x.rule == "duplicate-child"]


# -- state wording: orphaned children, settled parents --

def parent_with_children(cohort: str, *, settled: bool = False, delivery: str | None = None) -> Timeline:
    tl = Timeline("a parent whose run ended while two async children run")
    tl.shell(f.shell_row(P, "Orchestrator", 0, status="running", activity="running", run="run-p1",
                         requested=0, started=0))
    tl.subscribe(P)
    begin_run(tl, P, "run-p1", 0, "pt-p")
    for crid in ("a", "b"):
        task, child = delegate(tl, crid, f"Child {crid}", 1, "always", pthread=f"pt-{crid}")
        if delivery:
            tl.event(P, "subagent.updated", f.subagent(task, P, "run-p1", child, f"Child {crid}",
                                                       wake="always", status="running", started=1,
                                                       updated=5, delivery=delivery), 5, "run-p1")
    status = "interrupted" if cohort == "stopped" else "completed"
    tl.event(P, "run.updated", f.run("run-p1", P, 1, status, 0, 0, 5, "pt-p", cohort), 5, "run-p1")
    tl.shell(f.shell_row(P, "Orchestrator", 0, status=status, run="run-p1", requested=0, started=0,
                         completed=5, updated=5, settled_at=6 if settled else None))
    return tl


def test_a_stopped_parent_with_running_children_reads_children_orphaned():
    view = sup_of(parent_with_children("stopped")).view(f.at(30))
    row = view.row(P)
    assert row.state == "orphaned"
    assert row.state_reason == "children orphaned (2 still running; the parent will not be told)"


def test_disposed_wakes_also_orphan_the_children():
    row = sup_of(parent_with_children("open", delivery="disposed")).view(f.at(30)).row(P)
    assert row.state == "orphaned"


def test_a_parent_that_will_be_woken_is_waiting():
    row = sup_of(parent_with_children("open")).view(f.at(30)).row(P)
    assert (row.state, row.state_reason) == ("waiting", "waiting (2 children)")


def test_a_settled_parent_reads_settled_while_children_run():
    row = sup_of(parent_with_children("open", settled=True)).view(f.at(30)).row(P)
    assert (row.state, row.state_reason) == ("settled", "settled · 2 children still running")
    row = sup_of(parent_with_children("stopped", settled=True)).view(f.at(30)).row(P)
    assert (row.state, row.state_reason) == ("settled", "settled · 2 children orphaned")


# -- a done child's "since" (issue 21: after an interrupt it read the task's old end) --

def test_a_done_child_run_again_then_interrupted_is_done_since_that_run_ended():
    tl = Timeline("a child done at 10, checked in on at 100, interrupted at 300")
    tl.shell(f.shell_row(P, "Parent", 0, status="completed", run="run-p1", requested=0,
                         started=0, completed=12))
    tl.subscribe(P)
    task, child = delegate(tl, "kid", "Kid", 1, "settled_only", pthread="pt-k")
    end_run(tl, child, "run-kid", 1, 10, "pt-k")
    tl.event(P, "subagent.updated", f.subagent(task, P, "run-p1", child, "Kid", wake="always",
                                               status="completed", started=1, completed=10),
             10, "run-p1")
    tl.shell(f.shell_row(child, "Kid", 1, parent=P, status="completed", run="run-kid",
                         requested=1, started=1, completed=10))
    begin_run(tl, child, "run-check", 100, "pt-k", ordinal=2)
    tl.shell(f.shell_row(child, "Kid", 1, parent=P, status="running", activity="running",
                         run="run-check", requested=100, started=100))
    assert sup_of(tl).view(f.at(200)).row(child).state == "running"
    tl.event(child, "run.updated", f.run("run-check", child, 2, "interrupted", 100, 100, 300,
                                         "pt-k", "stopped"), 300, "run-check")
    tl.shell(f.shell_row(child, "Kid", 1, parent=P, status="interrupted", run="run-check",
                         requested=100, started=100, completed=300))
    row = sup_of(tl).view(f.at(400)).row(child)
    assert row.state == "done"
    assert row.state_since == f.at(300)  # when the run ended, not the task's 10


def test_a_done_child_is_done_since_its_task_completed():
    # the control: no run after the task, the task's own end
    tl = Timeline("a child done at 10")
    tl.shell(f.shell_row(P, "Parent", 0, status="completed", run="run-p1", requested=0,
                         started=0, completed=12))
    tl.subscribe(P)
    task, child = delegate(tl, "kid", "Kid", 1, "settled_only", pthread="pt-k")
    end_run(tl, child, "run-kid", 1, 9, "pt-k")
    tl.event(P, "subagent.updated", f.subagent(task, P, "run-p1", child, "Kid", wake="always",
                                               status="completed", started=1, completed=10),
             10, "run-p1")
    tl.shell(f.shell_row(child, "Kid", 1, parent=P, status="completed", run="run-kid",
                         requested=1, started=1, completed=9))
    row = sup_of(tl).view(f.at(400)).row(child)
    assert row.state == "done" and row.state_since == f.at(10)
