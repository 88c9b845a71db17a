"""Seed 000: batched `delegate_task` wait calls run one at a time under serial dispatch.

Driven through `run_scenario("parallel-probe")` with short timings (800 ms waits, `sleep 1.5`
children), asserting the timeline the report measured.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from t3tui.backend.engine import Engine
from tests.backend.engine.harness import idle, open_engine, until
from tests.backend.seeds.timelines import task_timelines

FAST = {"timeoutMs": 800, "sleep": 1.5}
PARENT = "thread-probe"


def quiet(engine: Engine) -> bool:
    return all(idle(engine, t) for t in engine.core.threads) and len(engine.core.threads) == 3


async def run_probe(tmp_path: Path, dispatch: str) -> dict[str, Any]:
    async with open_engine(tmp_path, dispatch=dispatch) as engine:
        await engine.run_scenario("parallel-probe", FAST)
        await until(engine, lambda: quiet(engine), timeout=20, what="probe finished")
        state = engine.state(PARENT)
        tools = [i for i in state.values("turnItems") if i["type"] == "dynamic_tool"
                 and i["toolName"] == "delegate_task"]
        children = [engine.state(t["childThreadId"]) for t in state.values("subagents")]
        return {
            "items": [e.to_wire() for e in engine.events_after(0)],
            "tools": [(t["startedAt"], t["completedAt"], json.loads(t["output"])) for t in tools],
            "narration": next(m for m in state.values("messages")
                              if m["text"].startswith("Started 2 children")),
            "child_runs": [c.runs()[0] for c in children],
            "child_replies": [c.values("messages")[-1]["text"] for c in children],
        }


async def test_serial_dispatch_creates_b_only_after_as_wait_timed_out(tmp_path: Path) -> None:
    probe = await run_probe(tmp_path, "serial")
    lines = task_timelines(probe["items"], PARENT)
    a, b = lines["parallel-probe-1-a"], lines["parallel-probe-1-b"]
    assert a.created < a.wait_returned < b.created < b.wait_returned
    (_, a_end, a_result), (b_start, _, b_result) = probe["tools"]
    assert a_result["waitTimedOut"] is True and b_result["waitTimedOut"] is True
    assert a_result["status"] == "running"  # the child is never cancelled by a timeout
    assert b_start >= a_end  # the harness sent B only after A returned
    # the agent claimed both children while only A existed
    narrated = next(i["sequence"] for i in probe["items"]
                    if i["event"]["payload"].get("id") == probe["narration"]["id"])
    assert narrated < b.created
    assert probe["child_replies"] == ["PROBE_COMPLETE", "PROBE_COMPLETE"]


async def test_parallel_dispatch_runs_both_children_at_once(tmp_path: Path) -> None:
    probe = await run_probe(tmp_path, "parallel")
    lines = task_timelines(probe["items"], PARENT)
    a, b = lines["parallel-probe-1-a"], lines["parallel-probe-1-b"]
    assert b.created < a.wait_returned and a.created < b.wait_returned
    assert all(result["waitTimedOut"] for _, _, result in probe["tools"])
    first, second = probe["child_runs"]
    assert first["startedAt"] < second["completedAt"] and second["startedAt"] < first[
        "completedAt"]
    assert probe["child_replies"] == ["PROBE_COMPLETE", "PROBE_COMPLETE"]
