"""Interrupting a hung `delegate_task` wait (delegation.md §9.1 levels 1 and 2, §4.2)."""

from __future__ import annotations

import json
from pathlib import Path

from t3tui.backend.engine import Engine
from tests.backend.engine.harness import (
    assistant_texts,
    child_of,
    delegate_call,
    fresh,
    idle,
    launch,
    open_engine,
    row,
    until,
)

HUNG_CHILD = "Run `sleep 30`, then reply NEVER"
SHORT_CHILD = "Run `sleep 0.4`, then reply {}"


def tool_items(engine: Engine, thread_id: str) -> list[dict]:
    return [i for i in engine.state(thread_id).values("turnItems")
            if i["type"] == "dynamic_tool" and i.get("toolName") == "delegate_task"]


def logged(engine: Engine, thread_id: str, event: str) -> list[dict]:
    return [e for e in engine.provider_log()
            if e["event"] == event and e.get("appThreadId") == thread_id]


def tasks(engine: Engine, thread_id: str) -> list[dict]:
    return engine.state(thread_id).values("subagents")


async def blocked_in_wait(engine: Engine, parent: str, client_request_id: str) -> str:
    """The child the parent's wait is blocked on, once its command runs."""
    child = await until(engine, lambda: child_of(engine, parent, client_request_id))
    await until(engine, lambda: logged(engine, child, "command.started")
                and tool_items(engine, parent), what="the parent blocked in its wait")
    return child


async def interrupt(engine: Engine, thread_id: str) -> None:
    run_id = row(engine, thread_id)["activeRunId"]
    assert run_id is not None, f"{thread_id} has no active run to interrupt"
    await engine.dispatch({"type": "run.interrupt", "commandId": fresh(), "threadId": thread_id,
                           "runId": run_id, "reason": "t3tui: user interrupt"})


async def test_level2_interrupting_the_parent_aborts_its_wait_and_the_child_runs_on(
        engine: Engine) -> None:
    parent = await launch(engine, delegate_call(task=SHORT_CHILD.format("LATE"), mode="wait",
                                                clientRequestId="w") + "\nReply AFTER")
    child = await blocked_in_wait(engine, parent, "w")
    await interrupt(engine, parent)
    await until(engine, lambda: row(engine, parent)["status"] == "interrupted",
                timeout=3, what="the parent's run interrupted")
    run = engine.state(parent).runs()[0]
    assert run["delegatedCompletion"]["disposition"] == "stopped"
    assert [i["status"] for i in tool_items(engine, parent)] == ["interrupted"]
    assert logged(engine, parent, "turn.interrupted")
    assert not logged(engine, parent, "tool.result")
    assert tasks(engine, parent)[0]["completionDelivery"]["state"] == "disposed"
    # the child is app-owned: a parent Stop leaves it running, and its result wakes nobody
    assert row(engine, child)["activityRunStatus"] == "running"
    await until(engine, lambda: tasks(engine, parent)[0]["status"] == "completed"
                and idle(engine, parent), what="the orphaned child finished")
    task = tasks(engine, parent)[0]
    assert (task["result"], task["completionDelivery"]["state"]) == ("LATE", "disposed")
    assert len(engine.state(parent).runs()) == 1
    assert "AFTER" not in assistant_texts(engine, parent)


async def test_level2_parallel_waits_are_all_aborted(engine: Engine) -> None:
    calls = "\n".join(delegate_call(task=HUNG_CHILD, mode="wait", clientRequestId=f"p{n}")
                      for n in (1, 2))
    parent = await launch(engine, calls + "\nReply AFTER")
    children = [await blocked_in_wait(engine, parent, f"p{n}") for n in (1, 2)]
    await until(engine, lambda: len(tool_items(engine, parent)) == 2)
    await interrupt(engine, parent)
    await until(engine, lambda: row(engine, parent)["status"] == "interrupted",
                timeout=3, what="the parent's run interrupted")
    assert [i["status"] for i in tool_items(engine, parent)] == ["interrupted"] * 2
    assert {t["completionDelivery"]["state"] for t in tasks(engine, parent)} == {"disposed"}
    assert [row(engine, c)["activityRunStatus"] for c in children] == ["running"] * 2


async def test_level1_interrupting_the_child_returns_the_wait_and_the_parent_goes_on(
        engine: Engine) -> None:
    parent = await launch(engine, delegate_call(task=HUNG_CHILD, mode="wait",
                                                clientRequestId="c") + "\nReply AFTER")
    child = await blocked_in_wait(engine, parent, "c")
    await interrupt(engine, child)
    await until(engine, lambda: row(engine, parent)["status"] == "completed",
                timeout=3, what="the parent continued and completed")
    assert row(engine, child)["status"] == "interrupted"
    result = json.loads(tool_items(engine, parent)[0]["output"])
    assert (result["status"], result["waitTimedOut"]) == ("interrupted", False)
    assert result["summary"] == "Child task ended with status interrupted."
    assert "AFTER" in assistant_texts(engine, parent)
    task = tasks(engine, parent)[0]
    assert task["completionDelivery"]["state"] == "acknowledged"
    assert len(engine.state(parent).runs()) == 1  # the wait read it: no wake run


async def test_serial_parent_interrupted_in_its_first_wait_never_sends_the_second_call(
        tmp_path: Path) -> None:
    calls = "\n".join(delegate_call(task=SHORT_CHILD.format(f"R{n}"), mode="wait",
                                    clientRequestId=f"s{n}") for n in (1, 2))
    async with open_engine(tmp_path, dispatch="serial") as engine:
        parent = await launch(engine, calls + "\nReply AFTER")
        first = await blocked_in_wait(engine, parent, "s1")
        await interrupt(engine, parent)
        await until(engine, lambda: row(engine, parent)["status"] == "interrupted",
                    timeout=3, what="the parent's run interrupted")
        # the second call could only follow the first wait's return: let that child finish
        await until(engine, lambda: row(engine, first)["status"] == "completed"
                    and tasks(engine, parent)[0]["status"] == "completed",
                    what="the first child finished")
        assert not any(engine.providers["codex"].turn_is_live(e["turn"])
                       for e in logged(engine, parent, "turn.started"))
        assert len(logged(engine, parent, "tool.call")) == 1
        assert len(tasks(engine, parent)) == 1
        assert child_of(engine, parent, "s2") is None
        assert [i["status"] for i in tool_items(engine, parent)] == ["interrupted"]
