"""Delegation (delegation.md §3 and §4): ids, modes, idempotency, sessions, publication, wakes."""

from __future__ import annotations

import json

import pytest

from t3tui.backend.engine import (
    CommandRejected,
    Engine,
    child_thread_id_for,
    client_request_id_of,
    delegate_command_id,
    task_id_for,
)
from t3tui.backend.engine.delegation import ToolFailure, _clamp_timeout
from t3tui.backend.engine.ids import encode_uri_component
from tests.backend.engine.harness import (
    assistant_texts,
    child_of,
    delegate_call,
    fresh,
    idle,
    launch,
    row,
    until,
)


def tool_results(engine: Engine, thread_id: str, name: str = "delegate_task") -> list[dict]:
    items = engine.state(thread_id).values("turnItems")
    return [json.loads(i["output"]) for i in items
            if i["type"] == "dynamic_tool" and i.get("toolName") == name and i.get("output")]


def task_rows(engine: Engine, thread_id: str) -> list[dict]:
    return engine.state(thread_id).values("subagents")


def test_ids_derive_from_the_uri_encoded_command_id() -> None:
    command_id = delegate_command_id("sess-1", "review-1")
    assert command_id == "command:mcp:sess-1:delegate-task:review-1"
    assert task_id_for(command_id) == (
        "node:delegated-task:command%3Amcp%3Asess-1%3Adelegate-task%3Areview-1")
    assert child_thread_id_for(command_id) == (
        "thread:delegated-task:command%3Amcp%3Asess-1%3Adelegate-task%3Areview-1")
    assert client_request_id_of(task_id_for(command_id)) == "review-1"
    assert encode_uri_component("a b/c?é!~*'()-_.") == "a%20b%2Fc%3F%C3%A9!~*'()-_."
    assert delegate_command_id("s", None).startswith("command:mcp:s:delegate-task:")


def test_timeout_is_clamped_to_one_ms_and_sixty_minutes() -> None:
    assert _clamp_timeout(None) == 600_000
    assert _clamp_timeout(0) == 1
    assert _clamp_timeout(10**12) == 3_600_000
    assert _clamp_timeout(800.7) == 800
    assert _clamp_timeout(float("inf")) == 3_600_000
    # the instruction parser (json) reads NaN; int(nan) raised a bare ValueError in the tool
    with pytest.raises(ToolFailure, match="timeoutMs must be a number"):
        _clamp_timeout(float("nan"))


async def test_async_child_shares_the_session_and_its_result_wakes_the_parent(
        engine: Engine) -> None:
    parent = await launch(engine, delegate_call(task="Reply CHILD_OK", title="Check",
                                                clientRequestId="c1") + "\nReply PARENT_OK")
    child = await until(engine, lambda: child_of(engine, parent, "c1"))
    await until(engine, lambda: idle(engine, parent) and idle(engine, child), what="quiet")
    session = engine.state(parent).values("providerSessions")[0]["id"]
    child_state = engine.state(child)
    assert child_state.values("providerThreads")[0]["providerSessionId"] == session
    thread = child_state.thread
    assert thread["lineage"] == {"parentThreadId": parent, "relationshipToParent": "subagent",
                                 "rootThreadId": parent}
    assert thread["creationSource"] == "mcp" and thread["createdBy"] == "agent"
    task = task_rows(engine, parent)[0]
    assert thread["forkedFrom"] == {"type": "node", "nodeId": task["id"]}
    assert task["childThreadId"] == child and task["origin"] == "app_owned"
    assert (task["status"], task["result"], task["completionWake"]) == (
        "completed", "CHILD_OK", "always")
    transfers = {t["type"] for t in engine.state(parent).values("contextTransfers")}
    assert transfers == {"subagent_spawn", "subagent_result"}
    wake = [m for m in engine.state(parent).values("messages") if m.get("delegatedCompletion")]
    assert len(wake) == 1
    assert wake[0]["text"] == (
        f"Delegated task {task['id']} reached a terminal state. "
        f"Use task_status with taskId {task['id']} to read the result.")
    assert (wake[0]["createdBy"], wake[0]["creationSource"]) == ("agent", "server")
    assert wake[0]["delegatedCompletion"]["taskIds"] == [task["id"]]
    assert task["completionDelivery"]["state"] in ("acknowledged", "delivered")
    assert any("CHILD_OK" in text for text in assistant_texts(engine, parent))
    result = tool_results(engine, parent)[0]
    assert result["taskId"] == task["id"] and result["childThreadId"] == child
    assert result["waitTimedOut"] is False


async def test_same_client_request_id_is_one_child(engine: Engine) -> None:
    call = delegate_call(task="Reply ONCE", clientRequestId="dup")
    parent = await launch(engine, f"{call}\n{call}\nReply DONE")
    await until(engine, lambda: len(tool_results(engine, parent)) == 2)
    first, second = tool_results(engine, parent)
    assert first["taskId"] == second["taskId"]
    assert len(task_rows(engine, parent)) == 1
    assert sum(1 for s in engine.core.threads.values() if s.parent_id() == parent) == 1


async def test_wait_returns_the_result_and_acknowledges_it(engine: Engine) -> None:
    parent = await launch(engine, delegate_call(task="Reply WAITED", mode="wait",
                                                clientRequestId="w") + "\nReply AFTER")
    await until(engine, lambda: idle(engine, parent) and row(engine, parent)["status"]
                == "completed")
    result = tool_results(engine, parent)[0]
    assert (result["status"], result["summary"], result["waitTimedOut"]) == (
        "completed", "WAITED", False)
    task = task_rows(engine, parent)[0]
    assert task["completionWake"] == "settled_only"
    assert task["completionDelivery"] == {"state": "acknowledged",
                                          "observedByRunId": task["runId"]}
    assert not [m for m in engine.state(parent).values("messages")
                if m.get("delegatedCompletion")]
    assert len(engine.state(parent).runs()) == 1


async def test_wait_timeout_flips_the_wake_policy_and_the_child_keeps_going(
        engine: Engine) -> None:
    parent = await launch(engine, delegate_call(
        task="Run `sleep 0.6`, then reply SLOW", mode="wait", timeoutMs=150,
        clientRequestId="slow") + "\nReply TIMED_OUT")
    result = (await until(engine, lambda: tool_results(engine, parent)))[0]
    assert result["waitTimedOut"] is True and result["status"] == "running"
    assert task_rows(engine, parent)[0]["completionWake"] == "always"
    await until(engine, lambda: task_rows(engine, parent)[0]["status"] == "completed"
                and idle(engine, parent), what="child done and parent woken")
    assert task_rows(engine, parent)[0]["result"] == "SLOW"
    assert any("SLOW" in text for text in assistant_texts(engine, parent))


async def test_tool_failures_come_back_to_the_agent(engine: Engine) -> None:
    calls = "\n".join([
        delegate_call(task="Reply X", target={"providerInstanceId": "nope"}),
        delegate_call(task="  "),
        delegate_call(task="Reply X", mode="later"),
    ])
    parent = await launch(engine, calls + "\nReply DONE")
    await until(engine, lambda: row(engine, parent)["status"] == "completed")
    codes = [r.get("code") for r in tool_results(engine, parent)]
    assert codes == ["provider_unavailable", "invalid_request", "invalid_request"]
    assert task_rows(engine, parent) == []


async def test_arguments_of_the_wrong_type_are_tool_failures(engine: Engine) -> None:
    # Each used to raise a TypeError/ValueError out of the tool: its item stayed "running".
    calls = "\n".join([
        delegate_call(task="Reply X", runtimeMode=["auto"]),
        delegate_call(task="Reply X", interactionMode={"m": 1}),
        delegate_call(task="Reply X", target={"providerInstanceId": ["codex"]}),
        delegate_call(task="Reply X", target={"model": ["m"]}),
        delegate_call(task="Reply X", mode="wait", timeoutMs=float("nan")),
    ])
    parent = await launch(engine, calls + "\nReply DONE")
    await until(engine, lambda: row(engine, parent)["status"] == "completed")
    codes = [r.get("code") for r in tool_results(engine, parent)]
    assert codes == ["invalid_request"] * 5
    assert task_rows(engine, parent) == []


async def test_a_child_cannot_be_broader_than_its_parent(engine: Engine) -> None:
    result = await engine.launch_thread({
        "commandId": fresh(), "projectId": "project-1", "title": "narrow",
        "modelSelection": {"instanceId": "codex", "model": "m"}, "runtimeMode": "auto",
        "initialMessage": {"text": delegate_call(task="Reply X", runtimeMode="full-access")}})
    parent = result["threadId"]
    await until(engine, lambda: row(engine, parent)["status"] == "completed")
    assert tool_results(engine, parent)[0]["code"] == "runtime_mode_escalation_denied"


async def test_request_needs_a_live_parent_run(engine: Engine) -> None:
    parent = await launch(engine, "Reply DONE")
    await until(engine, lambda: row(engine, parent)["status"] == "completed")
    with pytest.raises(CommandRejected, match="no live run"):
        await engine.dispatch({
            "type": "delegated_task.request", "commandId": fresh(), "parentThreadId": parent,
            "parentRunId": row(engine, parent)["latestRunId"], "parentNodeId": None,
            "task": "Reply X", "modelSelection": {"instanceId": "codex", "model": "m"}})


async def test_nested_grandchild_is_delivered_before_the_child_publishes(engine: Engine) -> None:
    grandchild = delegate_call(task="Run `sleep 0.3`, then reply GRAND", clientRequestId="g")
    parent = await launch(engine, delegate_call(task=f"{grandchild}\nReply CHILD_WAITING",
                                                clientRequestId="c") + "\nReply TOP")
    child = await until(engine, lambda: child_of(engine, parent, "c"))
    grand = await until(engine, lambda: child_of(engine, child, "g"))
    await until(engine, lambda: row(engine, child)["status"] == "completed"
                and task_rows(engine, child)[0]["status"] != "completed")
    assert task_rows(engine, parent)[0]["status"] == "running"  # waiting for its own child
    await until(engine, lambda: all(idle(engine, t) for t in (parent, child, grand)),
                what="the whole tree settles")
    assert engine.state(grand).thread["lineage"]["rootThreadId"] == parent
    child_task = task_rows(engine, parent)[0]
    grand_task = task_rows(engine, child)[0]
    assert grand_task["completedAt"] <= child_task["completedAt"]
    assert "GRAND" in child_task["result"]


async def test_parent_stop_disposes_deliveries_but_children_run_on(engine: Engine) -> None:
    parent = await launch(engine, delegate_call(task="Run `sleep 0.3`, then reply LATE",
                                                clientRequestId="late") + "\nHang")
    child = await until(engine, lambda: child_of(engine, parent, "late"))
    await until(engine, lambda: tool_results(engine, parent))
    await engine.dispatch({"type": "run.interrupt", "commandId": fresh(), "threadId": parent,
                           "runId": row(engine, parent)["activeRunId"]})
    task = task_rows(engine, parent)[0]
    assert task["completionDelivery"]["state"] == "disposed"
    assert row(engine, child)["activityRunStatus"] in ("starting", "running")
    cohort = engine.state(parent).runs()[0]["delegatedCompletion"]
    assert cohort["disposition"] == "stopped"
    await until(engine, lambda: task_rows(engine, parent)[0]["status"] == "completed")
    assert task_rows(engine, parent)[0]["completionDelivery"]["state"] == "disposed"
    assert len(engine.state(parent).runs()) == 1  # nobody woke the parent


async def test_supervisor_commands_on_task_rows(engine: Engine) -> None:
    parent = await launch(engine, delegate_call(task="Hang", mode="async",
                                                clientRequestId="h") + "\nReply P")
    await until(engine, lambda: task_rows(engine, parent))
    task_id = task_rows(engine, parent)[0]["id"]
    base = {"commandId": fresh(), "parentThreadId": parent, "taskId": task_id}
    await engine.dispatch({**base, "type": "delegated_task.wake-policy",
                           "completionWake": "settled_only"})
    assert task_rows(engine, parent)[0]["completionWake"] == "settled_only"
    await engine.dispatch({**base, "commandId": fresh(),
                           "type": "delegated_task.completion-delivery.dispose"})
    assert task_rows(engine, parent)[0]["completionDelivery"]["state"] == "disposed"
    with pytest.raises(CommandRejected, match="Task nope not found"):
        await engine.dispatch({**base, "commandId": fresh(), "taskId": "nope",
                               "type": "delegated_task.completion-delivery.dispose"})
