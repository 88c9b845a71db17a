"""Scenario files: loading, parameters, errors, and the demo tree coming up for real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from t3tui.backend.engine import Engine
from t3tui.backend.scenarios import ScenarioError, available, load_scenario
from t3tui.backend.testing import pid_alive
from t3tui.protocol import ThreadProjection, ThreadShell, decode_event
from tests.backend.engine.harness import open_engine, row, until

FAST_DEMO = {"short": 0.3, "sleep": 0.6, "timeoutMs": 200}


def test_bundled_scenarios_load_with_overrides() -> None:
    assert {"demo", "parallel-probe", "settle-unsubscribe"} <= set(available())
    probe = load_scenario("parallel-probe", {"timeoutMs": 800, "sleep": 1.5})
    text = probe.steps[0]["text"]
    assert '"timeoutMs": 800' in text and "sleep 1.5" in text and "${" not in text
    assert load_scenario("parallel-probe").params["timeoutMs"] == 10000
    demo = load_scenario("demo")
    assert {p["name"]: p["toolDispatch"] for p in demo.providers} == {
        "codex": "serial", "opencode": "parallel", "claude": "parallel"}
    second_wave = {"stop-never-lands", "runaway-provider", "duplicate-delegation",
                   "pending-delivery", "orphaned-children"}
    assert second_wave <= set(available())
    for name in second_wave:
        assert "${" not in json.dumps(load_scenario(name).steps)


def test_scenario_errors_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"unknown parameter.*nope.*known: runId, sleep"):
        load_scenario("parallel-probe", {"nope": 1})
    with pytest.raises(ScenarioError, match="unknown scenario 'missing'; bundled: demo"):
        load_scenario("missing")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ScenarioError, match="is not valid JSON"):
        load_scenario(bad)
    two = tmp_path / "two.json"
    two.write_text(json.dumps({"steps": [{"settle": "a", "unsettle": "a"}]}))
    with pytest.raises(ScenarioError, match="step 1 needs exactly one of"):
        load_scenario(two)
    undefined = tmp_path / "undefined.json"
    undefined.write_text(json.dumps({"steps": [{"pauseMs": "${x}"}]}))
    with pytest.raises(ScenarioError, match=r"unknown parameter \$\{x\}"):
        load_scenario(undefined)


async def test_a_custom_scenario_file_runs(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({
        "name": "mine", "params": {"word": "HELLO"},
        "providers": [{"name": "solo", "toolDispatch": "serial"}],
        "steps": [{"launch": "a", "provider": "solo", "text": "Reply ${word}"},
                  {"waitIdle": "a", "timeoutMs": 5000}]}))
    async with open_engine(tmp_path / "data") as engine:
        await engine.run_scenario(path)
        assert row(engine, "thread-a")["latestVisibleMessage"]["text"] == "HELLO"
        assert engine.providers["solo"].config.tool_dispatch == "serial"
        head = engine.head
        await engine.run_scenario(path)  # same step command ids: nothing happens twice
        assert engine.head == head


def _children(engine: Engine, parent: str) -> dict[str, dict]:
    rows = {}
    for task in engine.state(parent).values("subagents"):
        child = engine.shell_row_wire(task["childThreadId"])
        if child is not None:
            rows[task["title"]] = child
    return rows


async def test_demo_tree_reaches_every_state_and_leaves_no_process(tmp_path: Path) -> None:
    async with open_engine(tmp_path) as engine:
        await engine.run_scenario("demo", FAST_DEMO)
        assert engine.providers["codex"].config.faults == {"settle-drops-child-subscription"}

        def states() -> dict[str, str] | None:
            fanout, deploy = _children(engine, "thread-fanout"), _children(engine, "thread-deploy")
            nested = _children(engine, "thread-nested")
            helper = nested.get("Refactor helper")
            found = {
                "failed": (fanout.get("Type check") or {}).get("status"),
                "needs-input": bool((deploy.get("Deploy") or {}).get("pendingRuntimeRequest")),
                "long": row(engine, "thread-long-runner")["activityRunStatus"],
                "grandchild": bool(helper and _children(engine, helper["id"])),
                "serial": len(engine.state("thread-serial").values("subagents")),
                "shared": (_children(engine, "thread-settle-me").get("Same-session child")
                           or {}).get("status"),
            }
            wanted = {"failed": "failed", "needs-input": True, "long": "running",
                      "grandchild": True, "serial": 2, "shared": "completed"}
            return found if found == wanted else None

        await until(engine, states, timeout=10, what="every demo state")
        # everything the engine serves decodes with the protocol models and re-encodes exactly
        for stored in engine.events_after(0):
            assert decode_event(stored.wire).to_wire() == stored.wire
        for thread_id in engine.core.threads:
            wire = engine.projection_wire(thread_id)
            assert ThreadProjection.from_wire(wire).to_wire() == wire
            shell = engine.shell_row_wire(thread_id)
            assert ThreadShell.from_wire(shell).to_wire() == shell
        # the run is `running` a moment before its command's process is spawned
        pids = await until(engine, lambda: list(engine.providers["opencode"].processes.pids),
                           timeout=10, what="the long runner runs a real process")
    assert not any(pid_alive(p) for p in pids)
