"""Which runs a completion wake started (`Supervisor.woken_runs`), from the thread's stream:
what a tree stop reads to stop a parent its stopped children's results start again, and
nothing else (a run of the user's own message is never one of them)."""

from __future__ import annotations

from typing import Any

from t3tui.model import Supervisor
from t3tui.protocol import decode_thread_item
from tests.model import factory as f

SEQ = iter(range(1, 1000))


def event(sup: Supervisor, kind: str, payload: dict[str, Any]) -> None:
    n = next(SEQ)
    sup.apply_thread("p", decode_thread_item({"kind": "event", "sequence": n, "event": {
        "id": f"e{n}", "threadId": "p", "occurredAt": f.iso(n), "type": kind,
        "payload": payload}}))


def started_by(sup: Supervisor, rid: str, ordinal: int, status: str,
               wake: list[str] | None) -> None:
    message = f.message(f"msg-{rid}", "p", rid, "user", "go on", ordinal)
    if wake is not None:
        message["delegatedCompletion"] = {"parentRunId": "run-0", "generation": 1,
                                          "taskIds": wake}
    event(sup, "message.updated", message)
    event(sup, "run.updated", f.run(rid, "p", ordinal, status, ordinal, started=ordinal))


def test_only_runs_under_way_that_a_wake_started_with_the_tasks_it_names() -> None:
    sup = Supervisor()
    started_by(sup, "run-user", 1, "running", None)  # the user's own message
    started_by(sup, "run-wake", 2, "running", ["task-a", "task-b"])
    started_by(sup, "run-queued", 3, "queued", ["task-c"])  # not under way yet
    started_by(sup, "run-done", 4, "interrupted", ["task-d"])  # already ended
    assert sup.woken_runs("p") == {"run-wake": frozenset({"task-a", "task-b"})}
    assert sup.woken_runs("unknown") == {}


def test_a_run_whose_message_the_stream_has_not_shown_is_not_counted_yet() -> None:
    sup = Supervisor()
    event(sup, "run.updated", f.run("run-1", "p", 1, "running", 1, started=1))
    assert sup.woken_runs("p") == {}
