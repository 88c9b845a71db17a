"""Seed 004: after a parent settle, a same-session child's next turn is never recorded.

`run_scenario("settle-unsubscribe")` leaves a parent and its READY child idle on one provider
session; the test then settles the parent and checks in on the child, as the TUI user would.
"""

from __future__ import annotations

from pathlib import Path

from t3tui.backend.engine import Engine
from t3tui.backend.provider import SETTLE_DROPS_CHILD_SUBSCRIPTION, read_log
from tests.backend.engine.harness import assistant_texts, fresh, message, open_engine, row, until
from tests.backend.seeds.timelines import after_sequence

PARENT = "thread-parent"


def child_id(engine: Engine) -> str:
    return engine.state(PARENT).values("subagents")[0]["childThreadId"]


def pong_in_provider_log(engine: Engine, child: str) -> dict | None:
    return next((e for e in engine.provider_log("codex") if e["event"] == "turn.completed"
                 and e.get("appThreadId") == child and e.get("reply") == "PONG"), None)


async def settle_then_check_in(engine: Engine) -> tuple[str, int, int]:
    await engine.run_scenario("settle-unsubscribe")
    child = child_id(engine)
    assert row(engine, child)["latestVisibleMessage"]["text"] == "READY"
    settled = await engine.dispatch({"type": "thread.settle", "commandId": fresh(),
                                     "threadId": PARENT})
    checked_in = await engine.dispatch(message(child, "Reply PONG"))
    await until(engine, lambda: pong_in_provider_log(engine, child), what="provider did PONG")
    return child, settled, checked_in


async def test_fault_on_the_child_stays_running_while_the_provider_says_done(
        tmp_path: Path) -> None:
    async with open_engine(tmp_path, faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]) as engine:
        child, settled, checked_in = await settle_then_check_in(engine)
        items = [e.to_wire() for e in engine.events_after(0)]
        # t2: the parent's settle detached the session the child's provider thread lives in
        parent_tail = after_sequence(items, PARENT, settled - 2)
        assert [e["type"] for e in parent_tail[:2]] == ["thread.settled",
                                                       "provider-session.detached"]
        detached = parent_tail[1]["payload"]
        assert detached["reason"] == "Thread settled."
        child_state = engine.state(child)
        assert child_state.values("providerThreads")[0]["providerSessionId"] == detached[
            "providerSessionId"]
        assert after_sequence(items, child, settled - 2)[0]["type"] == "message.updated"
        # t3..t4: the provider finished the turn (its own log says PONG) ...
        log_entry = pong_in_provider_log(engine, child)
        assert log_entry is not None
        file_entries = read_log(tmp_path / "provider-logs" / "codex.jsonl")
        assert log_entry in file_entries
        # ... and the orchestration never heard: run and provider turn stay running
        shell = row(engine, child)
        assert shell["status"] == "running" and shell["activityRunStatus"] == "running"
        assert child_state.runs()[-1]["status"] == "running"
        assert child_state.values("providerTurns")[-1]["status"] == "running"
        assert "PONG" not in assistant_texts(engine, child)
        assert shell["latestVisibleMessage"]["text"] == "Reply PONG"
        events_since = after_sequence([e.to_wire() for e in engine.events_after(checked_in)],
                                      child, checked_in)
        assert not [e for e in events_since if e["type"] == "run.updated"
                    and e["payload"]["status"] in ("waiting", "completed")]


async def test_fault_off_pong_arrives_and_the_run_completes(tmp_path: Path) -> None:
    async with open_engine(tmp_path) as engine:
        child, _, _ = await settle_then_check_in(engine)
        await until(engine, lambda: row(engine, child)["status"] == "completed",
                    what="child run completed")
        assert assistant_texts(engine, child)[-1] == "PONG"
        assert row(engine, child)["latestVisibleMessage"]["text"] == "PONG"
        assert engine.state(child).values("providerTurns")[-1]["status"] == "completed"
        assert row(engine, PARENT)["settledOverride"] == "settled"


async def test_fault_on_interrupting_the_lost_turn_ends_the_run(tmp_path: Path) -> None:
    """The provider has nothing left to interrupt; the orchestration must end the run itself."""
    async with open_engine(tmp_path, faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]) as engine:
        child, _, _ = await settle_then_check_in(engine)
        run_id = row(engine, child)["activeRunId"]
        assert run_id is not None
        await engine.dispatch({"type": "run.interrupt", "commandId": fresh(),
                               "threadId": child, "runId": run_id})
        await until(engine, lambda: row(engine, child)["status"] == "interrupted",
                    what="lost run ended interrupted")
        shell = row(engine, child)
        assert shell["activeRunId"] is None and shell["activityRunStatus"] is None
        assert engine.state(child).values("providerTurns")[-1]["status"] == "interrupted"
        # the thread takes messages again: the next check-in starts a fresh run
        await engine.dispatch(message(child, "Reply PONG"))
        await until(engine, lambda: row(engine, child)["activeRunId"] not in (None, run_id),
                    what="a new run started")
