"""Check-ins: planning the message.dispatch, verdicts, and the checkin-unanswered rule."""

from __future__ import annotations

from t3tui.model import CheckInPlan, CheckInVerdict, DetectorConfig, plan_checkin
from tests.model.factory import at, task_ids
from tests.model.replay import supervisor, view_at

_, CHILD = task_ids("ready-1")
_, SLOW = task_ids("slow-1")


def plan_for(sup, thread_id, t, **kw):
    row = sup.row(thread_id, at(t))
    assert row is not None
    return plan_checkin(row, command_id="cmd-1", message_id="m-checkin", now=at(t), **kw)


def test_idle_thread_gets_start_immediately():
    sup = supervisor("seed004_healthy", until="after-settle")
    plan = plan_for(sup, CHILD, 130, timeout_s=10)
    assert isinstance(plan, CheckInPlan)
    assert plan.dispatch_mode == "start_immediately"
    wire = plan.command.to_wire()
    assert wire["type"] == "message.dispatch" and wire["threadId"] == CHILD
    assert wire["text"] == "Reply exactly PONG" and wire["messageId"] == "m-checkin"
    assert wire["commandId"] == "cmd-1" and wire["dispatchMode"] == {"type": "start_immediately"}
    assert wire["createdBy"] == "user" and wire["creationSource"] == "web"
    assert plan.checkin.deadline == at(140) and plan.checkin.expect == "PONG"


def test_running_thread_is_queued_or_refused_as_busy():
    sup = supervisor("slow_progress")
    plan = plan_for(sup, SLOW, 600, text="status?", expect="OK")
    assert isinstance(plan, CheckInPlan) and plan.dispatch_mode == "queue_after_active"
    assert plan.command.to_wire()["dispatchMode"] == {"type": "queue_after_active"}
    busy = plan_for(sup, SLOW, 600, queue_if_busy=False)
    assert isinstance(busy, CheckInVerdict) and busy.verdict == "busy"
    assert "running" in busy.reason


def test_answered_with_latency_from_the_thread_stream():
    sup = supervisor("seed004_healthy", until="after-settle")
    plan = plan_for(sup, CHILD, 130, timeout_s=10)
    sup.record_checkin(plan.checkin)
    assert sup.checkin_verdict(CHILD, at(131)).verdict == "pending"
    sup = supervisor("seed004_healthy")
    sup.record_checkin(plan.checkin)
    verdict = sup.checkin_verdict(CHILD, at(133))
    assert verdict.verdict == "answered" and verdict.latency_s == 2.0
    assert verdict.answered_at == at(132)
    assert view_at(sup, 200).findings == ()


def test_answered_from_the_shell_preview_alone():
    sup = supervisor("seed004_healthy", until="after-settle")
    plan = plan_for(sup, CHILD, 130, timeout_s=10)
    sup = supervisor("seed004_healthy")
    sup.forget_thread(CHILD)
    sup.record_checkin(plan.checkin)
    verdict = sup.checkin_verdict(CHILD, at(150))
    assert verdict.verdict == "answered" and verdict.latency_s == 2.0


def test_our_own_message_is_not_the_answer_and_the_deadline_gives_unanswered():
    sup = supervisor("seed004_detached", until="after-settle")
    plan = plan_for(sup, CHILD, 130, timeout_s=10)
    sup = supervisor("seed004_detached", config=DetectorConfig(detached_session_dwell_s=600))
    sup.record_checkin(plan.checkin)
    assert sup.checkin_verdict(CHILD, at(139)).verdict == "pending"
    assert view_at(sup, 139).findings == ()
    verdict = sup.checkin_verdict(CHILD, at(140))
    assert verdict.verdict == "unanswered"
    view = view_at(sup, 141)
    assert [(f.thread_id, f.rule) for f in view.findings] == [(CHILD, "checkin-unanswered")]
    evidence = view.findings[0].evidence
    assert any("detached" in e for e in evidence["providerEvidence"])
    assert view.row(CHILD).state == "stuck"


def test_unanswered_but_progressing_thread_is_not_stuck():
    sup = supervisor("slow_progress", config=DetectorConfig(checkin_timeout_s=30))
    plan = plan_for(sup, SLOW, 600, config=sup.config)
    sup.record_checkin(plan.checkin)
    assert sup.checkin_verdict(SLOW, at(700)).verdict == "unanswered"
    assert view_at(sup, 700).findings == ()


def test_server_refusal_is_busy():
    sup = supervisor("seed004_healthy", until="after-settle")
    plan = plan_for(sup, CHILD, 130)
    sup.record_checkin(plan.checkin)
    sup.checkin_rejected(CHILD, "Thread is archived.")
    verdict = sup.checkin_verdict(CHILD, at(131))
    assert verdict.verdict == "busy" and "Thread is archived." in verdict.reason


def test_provider_native_child_is_refused():
    sup = supervisor("seed004_healthy", until="after-settle")
    row = sup.row(CHILD, at(130))
    native = type(row)(**{**row.__dict__, "origin": "provider_native"})
    verdict = plan_checkin(native, command_id="c", message_id="m", now=at(130))
    assert isinstance(verdict, CheckInVerdict) and verdict.verdict == "busy"
    assert sup.checkin_verdict(CHILD, at(131)) is None


def _run_event(seq, thread, run_body, t):
    from tests.model.factory import iso

    return {"kind": "event", "sequence": seq, "event": {
        "id": f"e{seq}", "threadId": thread, "runId": run_body["id"], "occurredAt": iso(t),
        "type": "run.updated", "payload": run_body}}


def test_the_checkin_run_ending_unanswered_is_a_verdict_at_once():
    from tests.model import factory as f

    sup = supervisor("seed004_detached", until="after-settle")
    plan = plan_for(sup, CHILD, 130)  # default timeout: deadline at 250
    sup = supervisor("seed004_detached")
    sup.record_checkin(plan.checkin)
    assert sup.checkin_verdict(CHILD, at(140)).verdict == "pending"
    # our message went into run-c2; the user interrupts it at 150
    ended = f.run("run-c2", CHILD, 2, "interrupted", 130, started=130.5, completed=150,
                  pthread="pt-c")
    sup.apply_thread(CHILD, _run_event(20_000, CHILD, ended, 150))
    verdict = sup.checkin_verdict(CHILD, at(151))
    assert verdict.verdict == "unanswered"
    assert verdict.reason == "run ended interrupted before answering 'PONG'"
    # concluded, but the thread is not running: no stuck finding from the check-in
    assert all(x.rule != "checkin-unanswered" for x in view_at(sup, 151).findings)


def test_a_queued_checkin_run_that_completes_without_the_answer():
    from tests.model import factory as f

    sup = supervisor("slow_progress")
    plan = plan_for(sup, SLOW, 600)
    assert isinstance(plan, CheckInPlan) and plan.dispatch_mode == "queue_after_active"
    sup.record_checkin(plan.checkin)
    queued = {**f.run("run-q", SLOW, 9, "queued", 600), "userMessageId": "m-checkin"}
    sup.apply_thread(SLOW, _run_event(30_000, SLOW, queued, 600))
    assert sup.checkin_verdict(SLOW, at(601)).verdict == "pending"
    done = {**queued, "status": "completed", "startedAt": f.iso(610), "completedAt": f.iso(620)}
    sup.apply_thread(SLOW, _run_event(30_001, SLOW, done, 620))
    verdict = sup.checkin_verdict(SLOW, at(621))
    assert verdict.verdict == "unanswered" and verdict.reason == \
        "run completed before answering 'PONG'"


def test_an_answer_wins_over_the_run_ending():
    sup = supervisor("seed004_healthy", until="after-settle")
    plan = plan_for(sup, CHILD, 130, timeout_s=10)
    sup = supervisor("seed004_healthy")  # the check-in's run answers PONG, then completes
    sup.record_checkin(plan.checkin)
    assert sup.row(CHILD, at(133)).run_status == "completed"
    verdict = sup.checkin_verdict(CHILD, at(133))
    assert verdict.verdict == "answered" and verdict.latency_s == 2.0


def test_an_earlier_reply_is_not_the_answer_when_the_server_clock_is_ahead():
    from t3tui.model.checkin import CheckIn, checkin_verdict
    from tests.model.factory import iso

    # Server clock 5 s ahead of ours: the previous check-in's PONG (server 103) is "after"
    # our send (our 100), but it came before our question reached the thread.
    checkin = CheckIn("t", "Reply exactly PONG", "PONG", at(100), at(200), "m-new", "c-new")

    def msg(mid, role, text, t):
        return {"id": mid, "role": role, "text": text, "createdAt": iso(t)}

    earlier = [msg("m-old", "user", "Reply exactly PONG", 96), msg("a-old", "assistant", "PONG", 103)]
    preview = {"id": "a-old", "role": "assistant", "text": "PONG", "updatedAt": iso(103)}
    verdict = checkin_verdict(checkin, now=at(101), messages=earlier, latest_visible=preview)
    assert verdict.verdict == "pending"
    answered = [*earlier, msg("m-new", "user", "Reply exactly PONG", 105),
                msg("a-new", "assistant", "PONG", 107)]
    verdict = checkin_verdict(checkin, now=at(103), messages=answered, latest_visible=preview)
    assert (verdict.verdict, verdict.latency_s) == ("answered", 2.0)
