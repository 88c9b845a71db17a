"""Commands through `Engine.dispatch`: validation, idempotency, settle, interrupts, requests."""

from __future__ import annotations

import re

import pytest

from t3tui.backend.engine import CommandRejected, Engine, UnknownThread
from t3tui.backend.testing import pid_alive
from tests.backend.engine.harness import assistant_texts, fresh, launch, message, row, until

SETTLE_REFUSAL = "Thread {} has active or blocked work and cannot be settled."


def settle(thread_id: str, command_id: str | None = None) -> dict:
    return {"type": "thread.settle", "commandId": command_id or fresh(), "threadId": thread_id}


async def completed(engine: Engine, thread_id: str) -> dict:
    return await until(engine, lambda: row(engine, thread_id)["status"] == "completed"
                       and row(engine, thread_id), what=f"{thread_id} completed")


def types_in_order(types: list[str], expected: list[str]) -> bool:
    """`expected` appears in `types` as an ordered subsequence."""
    it = iter(types)
    return all(any(t == want for t in it) for want in expected)


async def test_reply_pong_follows_the_documented_event_order(engine: Engine) -> None:
    head = engine.head
    thread_id = await launch(engine, "Reply PONG")
    done = await completed(engine, thread_id)
    assert done["latestVisibleMessage"]["text"] == "PONG"
    assert done["activeRunId"] is None and done["activityRunStatus"] is None
    events = [e.event for e in engine.events_after(head) if e.event.thread_id == thread_id]
    labels = [e.type + (f":{e.payload.status}" if e.type in ("run.updated",
              "provider-turn.updated", "provider-thread.updated") else "") for e in events]
    assert types_in_order(labels, [
        "thread.created", "message.updated", "turn-item.updated", "run.created",
        "run.updated:starting", "provider-session.attached", "provider-thread.updated:active",
        "run-attempt.created", "run.updated:running", "provider-turn.updated:running",
        "message.updated", "provider-turn.updated:completed", "run.updated:waiting",
        "checkpoint.captured", "run.updated:completed", "provider-thread.updated:idle",
    ]), labels


async def test_validation_and_unknown_threads_are_rejected(engine: Engine) -> None:
    with pytest.raises(CommandRejected, match="Unknown thread nope"):
        await engine.dispatch(message("nope", "Reply PONG"))
    with pytest.raises(CommandRejected, match="Unknown thread nope"):
        await engine.dispatch(settle("nope"))
    with pytest.raises(CommandRejected, match=r"Unsupported command type thread\.pin"):
        await engine.dispatch({"type": "thread.pin", "commandId": fresh(), "threadId": "x"})
    with pytest.raises(CommandRejected, match="no commandId"):
        await engine.dispatch({"type": "thread.settle", "threadId": "x"})
    with pytest.raises(CommandRejected, match="Unknown provider instance claude") as info:
        await launch(engine, provider="claude")
    assert info.value.detail == "Known instances: codex"
    thread_id = await launch(engine)
    with pytest.raises(CommandRejected, match="already exists"):
        await launch(engine, thread_id=thread_id)
    with pytest.raises(UnknownThread):
        engine.projection("nope")
    assert engine.shell_row("nope") is None


async def test_a_repeated_command_id_returns_the_first_result_with_no_second_effect(
        engine: Engine) -> None:
    thread_id = await launch(engine)
    command = message(thread_id, "Reply PONG")
    first = await engine.dispatch(command)
    second = await engine.dispatch(command)
    assert first == second
    await completed(engine, thread_id)
    head = engine.head
    assert await engine.dispatch(command) == first
    assert engine.head == head
    assert assistant_texts(engine, thread_id) == ["PONG"]
    settled = settle(thread_id)
    seq = await engine.dispatch(settled)
    assert await engine.dispatch(settled) == seq == engine.head


async def test_settle_guard_refuses_active_work_with_t3s_text(engine: Engine) -> None:
    thread_id = await launch(engine, "Hang")
    await until(engine, lambda: row(engine, thread_id)["activityRunStatus"] == "running")
    with pytest.raises(CommandRejected) as refused:
        await engine.dispatch(settle(thread_id))
    assert refused.value.message == SETTLE_REFUSAL.format(thread_id)
    assert row(engine, thread_id)["settledOverride"] is None


async def test_settle_guard_refuses_a_pending_request(engine: Engine) -> None:
    thread_id = await launch(engine, "Ask for approval to run `true`")
    await until(engine, lambda: row(engine, thread_id)["pendingRuntimeRequest"])
    with pytest.raises(CommandRejected, match=re.escape(SETTLE_REFUSAL.format(thread_id))):
        await engine.dispatch(settle(thread_id))


async def test_settle_detaches_live_sessions_and_unsettle_restores(engine: Engine) -> None:
    thread_id = await launch(engine, "Reply PONG")
    await completed(engine, thread_id)
    session_id = engine.state(thread_id).live_sessions()[0]["id"]
    seq = await engine.dispatch(settle(thread_id))
    tail = [e.event for e in engine.events_after(seq - 2)]
    assert [e.type for e in tail] == ["thread.settled", "provider-session.detached"]
    assert tail[1].payload.provider_session_id == session_id
    assert tail[1].payload.reason == "Thread settled."
    shell = row(engine, thread_id)
    assert shell["settledOverride"] == "settled" and shell["settledAt"]
    assert engine.state(thread_id).live_sessions() == []
    with pytest.raises(CommandRejected, match='only reason "user"'):
        await engine.dispatch({"type": "thread.unsettle", "commandId": fresh(),
                               "threadId": thread_id, "reason": "activity"})
    await engine.dispatch({"type": "thread.unsettle", "commandId": fresh(),
                           "threadId": thread_id, "reason": "user"})
    assert row(engine, thread_id)["settledOverride"] == "active"


async def test_interrupt_kills_the_subprocess_tree_and_ends_the_run(engine: Engine) -> None:
    thread_id = await launch(engine, "Run `echo pid=$$; sleep 30 & exec sleep 30`, then reply X")

    def pid() -> int | None:
        items = engine.state(thread_id).values("turnItems")
        out = "".join(i.get("output") or "" for i in items if i["type"] == "command_execution")
        found = re.search(r"pid=(\d+)", out)
        return int(found.group(1)) if found else None

    leader = await until(engine, pid, what="the command printed its pid")
    assert pid_alive(leader)
    run_id = row(engine, thread_id)["activeRunId"]
    await engine.dispatch({"type": "run.interrupt", "commandId": fresh(), "threadId": thread_id,
                           "runId": run_id, "reason": "test"})
    await until(engine, lambda: row(engine, thread_id)["status"] == "interrupted")
    assert not pid_alive(leader)
    assert engine.providers["codex"].processes.pids == []
    kinds = {i["type"]: i["status"] for i in engine.state(thread_id).values("turnItems")}
    assert kinds["command_execution"] == "interrupted"
    assert kinds["run_interrupt_request"] == "completed"
    with pytest.raises(CommandRejected, match="is not active"):
        await engine.dispatch({"type": "run.interrupt", "commandId": fresh(),
                               "threadId": thread_id, "runId": run_id})


async def test_an_approval_runs_the_command_once_accepted(engine: Engine) -> None:
    thread_id = await launch(engine, "Ask for approval to run `echo approved-ran`, then reply OK")
    pending = await until(engine, lambda: row(engine, thread_id)["pendingRuntimeRequest"])
    assert pending["kind"] == "command"
    assert row(engine, thread_id)["activityRunStatus"] == "running"
    respond = {"type": "runtime-request.respond", "commandId": fresh(), "threadId": thread_id,
               "requestId": pending["id"], "decision": "accept"}
    await engine.dispatch(respond)
    await completed(engine, thread_id)
    state = engine.state(thread_id)
    assert state.coll["runtimeRequests"][pending["id"]]["decision"] == "accept"
    outputs = [i.get("output") for i in state.values("turnItems")
               if i["type"] == "command_execution"]
    assert outputs == ["approved-ran\n"]
    with pytest.raises(CommandRejected, match="is resolved"):
        await engine.dispatch({**respond, "commandId": fresh()})


async def test_a_declined_approval_does_not_run(engine: Engine) -> None:
    thread_id = await launch(engine, "Ask for approval to run `echo nope`")
    pending = await until(engine, lambda: row(engine, thread_id)["pendingRuntimeRequest"])
    await engine.dispatch({"type": "runtime-request.respond", "commandId": fresh(),
                           "threadId": thread_id, "requestId": pending["id"],
                           "decision": "decline"})
    done = await completed(engine, thread_id)
    assert "Not running `echo nope`" in done["latestVisibleMessage"]["text"]


async def test_queue_steer_restart_and_defer(engine: Engine) -> None:
    thread_id = await launch(engine, "Hang")
    first = await until(engine, lambda: row(engine, thread_id)["activeRunId"])
    await engine.dispatch(message(thread_id, "Reply QUEUED", "queue_after_active"))
    queued = engine.state(thread_id).queued_runs()
    assert len(queued) == 1 and row(engine, thread_id)["status"] == "queued"
    await engine.dispatch(message(thread_id, "Reply RESTARTED", "restart_active", first))
    await until(engine, lambda: "QUEUED" in assistant_texts(engine, thread_id))
    runs = engine.state(thread_id).runs()
    assert runs[0]["status"] == "interrupted"
    restarted = next(r for r in runs if r.get("restartContinuationOfRunId") == first)
    assert restarted["status"] == "completed"
    # the restart went ahead of the queue
    assert runs.index(restarted) > 0 and assistant_texts(engine, thread_id) == ["RESTARTED",
                                                                                 "QUEUED"]
    head_runs = len(runs)
    await engine.dispatch(message(thread_id, "Reply LATER", "defer_start"))
    assert len(engine.state(thread_id).runs()) == head_runs
    assert row(engine, thread_id)["latestVisibleMessage"]["text"] == "Reply LATER"


async def test_steer_reaches_the_live_turn(engine: Engine) -> None:
    thread_id = await launch(engine, "Ask for approval to run `true`, then reply FIRST")
    pending = await until(engine, lambda: row(engine, thread_id)["pendingRuntimeRequest"])
    run_id = row(engine, thread_id)["activeRunId"]
    await engine.dispatch(message(thread_id, "Reply STEERED", "steer_active", run_id))
    await engine.dispatch({"type": "runtime-request.respond", "commandId": fresh(),
                           "threadId": thread_id, "requestId": pending["id"],
                           "decision": "accept"})
    done = await completed(engine, thread_id)
    assert done["latestVisibleMessage"]["text"] == "FIRST\nSTEERED"
    assert len(engine.state(thread_id).runs()) == 1
    steer_items = [i for i in engine.state(thread_id).values("turnItems")
                   if i.get("inputIntent") == "steer"]
    assert [i["runId"] for i in steer_items] == [run_id]


async def test_a_failed_turn_sets_last_error(engine: Engine) -> None:
    thread_id = await launch(engine, "Fail with The build broke.")
    done = await until(engine, lambda: row(engine, thread_id)["status"] == "failed"
                       and row(engine, thread_id))
    assert done["lastError"] == "The build broke"


async def test_detaching_a_session_ends_its_turn(engine: Engine) -> None:
    thread_id = await launch(engine, "Hang")
    await until(engine, lambda: row(engine, thread_id)["activityRunStatus"] == "running")
    session_id = engine.state(thread_id).live_sessions()[0]["id"]
    await engine.dispatch({"type": "provider-session.detach", "commandId": fresh(),
                           "threadId": thread_id, "providerSessionId": session_id})
    assert row(engine, thread_id)["status"] == "interrupted"
    with pytest.raises(CommandRejected, match="is not attached"):
        await engine.dispatch({"type": "provider-session.detach", "commandId": fresh(),
                               "threadId": thread_id, "providerSessionId": session_id})
    await engine.dispatch(message(thread_id, "Reply AGAIN"))
    await until(engine, lambda: "AGAIN" in assistant_texts(engine, thread_id))
    assert len(engine.state(thread_id).live_sessions()) == 1
