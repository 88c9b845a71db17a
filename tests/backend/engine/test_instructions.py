"""The scripted agent's instruction language."""

from __future__ import annotations

from t3tui.backend.provider import instructions as ins


def test_reply_forms() -> None:
    assert ins.parse("Reply PONG") == [ins.Reply("PONG")]
    assert ins.parse("Reply exactly PONG") == [ins.Reply("PONG")]
    assert ins.parse("Please reply exactly v1.2 ok. Thanks.") == [ins.Reply("v1.2 ok")]


def test_run_then_reply_in_order_and_prose_is_ignored() -> None:
    steps = ins.parse("Run `sleep 15`, then reply PROBE_COMPLETE. Do not edit files or delegate.")
    assert steps == [ins.RunCommand("sleep 15"), ins.Reply("PROBE_COMPLETE")]


def test_approval_is_not_mistaken_for_a_plain_run() -> None:
    steps = ins.parse("Ask for approval to run `echo hi > f`, then reply DONE")
    assert steps == [ins.AskApproval("echo hi > f"), ins.Reply("DONE")]


def test_consecutive_delegate_calls_form_one_block_with_their_json() -> None:
    text = (
        'Start both.\ndelegate_task {"task": "Reply A", "mode": "wait", "timeoutMs": 800}\n'
        'delegate_task({"task": "Run `sleep 1`, then reply B", "clientRequestId": "b"})\n'
        "Reply STARTED"
    )
    steps = ins.parse(text)
    assert steps == [
        ins.Delegate(({"task": "Reply A", "mode": "wait", "timeoutMs": 800},
                      {"task": "Run `sleep 1`, then reply B", "clientRequestId": "b"})),
        ins.Reply("STARTED"),
    ]


def test_bad_delegate_json_is_reported_not_raised() -> None:
    steps = ins.parse('delegate_task {"task": oops}\nReply X')
    assert isinstance(steps[0], ins.BadInstruction)
    assert "not valid JSON" in steps[0].message
    assert steps[-1] == ins.Reply("X")
    assert ins.parse("delegate_task [1, 2]") == []  # arguments must be an object


def test_hang_fail_and_wake_messages() -> None:
    assert ins.parse("Hang") == [ins.Hang()]
    assert ins.parse("Fail with Could not build. Then stop.") == [ins.Fail("Could not build")]
    wake = ("Delegated tasks node:delegated-task:a%3A1, node:delegated-task:b reached a terminal "
            "state. Use task_status with taskId node:delegated-task:a%3A1, taskId "
            "node:delegated-task:b to read the results.")
    assert ins.parse(wake) == [ins.ReadTasks(("node:delegated-task:a%3A1",
                                              "node:delegated-task:b"))]
    assert ins.parse("Nothing to do here") == []
