"""Persistence: a restarted engine serves the same history; live work is ended, not lost."""

from __future__ import annotations

import re
from pathlib import Path

from t3tui.backend.engine import Engine, ProviderInstanceConfig
from t3tui.backend.engine.recovery import RESTART_NOTICE, SHUTDOWN_NOTICE
from t3tui.backend.testing import pid_alive
from tests.backend.engine.harness import (
    assistant_texts,
    delegate_call,
    fresh,
    idle,
    launch,
    message,
    open_engine,
    row,
    until,
)


async def crash(engine: Engine) -> None:
    """Stop like a killed process would: agents die, nothing more is written."""
    engine.core.on_committed = None
    engine.runs.close()
    for provider in engine.providers.values():
        await provider.close()
    engine.store.close()


def notices(engine: Engine, thread_id: str) -> list[str]:
    return [i["message"] for i in engine.state(thread_id).values("turnItems")
            if i["type"] == "system_notice"]


async def test_restart_serves_the_same_sequences_and_state(tmp_path: Path) -> None:
    history: list[dict] = []
    async with open_engine(tmp_path) as first:
        first.listen(lambda stored: history.append(stored.to_wire()))
        parent = await launch(first, delegate_call(task="Reply CHILD", clientRequestId="k")
                              + "\nReply PARENT")
        await until(first, lambda: idle(first, parent) and all(
            idle(first, t) for t in first.core.threads), what="quiet")
        settle = {"type": "thread.settle", "commandId": fresh(), "threadId": parent}
        settled_at = await first.dispatch(settle)
    # what the first engine heard, up to and including its shutdown record
    projections = {t: first.projection_wire(t) for t in first.core.threads}
    snapshot = first.shell_snapshot().to_wire()
    async with open_engine(tmp_path) as second:
        assert second.head == len(history) == history[-1]["sequence"]
        assert [e.to_wire() for e in second.events_after(0)] == history
        assert {t: second.projection_wire(t) for t in second.core.threads} == projections
        assert second.shell_snapshot().to_wire()["threads"] == snapshot["threads"]
        assert await second.dispatch(settle) == settled_at
        assert second.head == len(history)
        await second.dispatch(message(parent, "Reply AGAIN"))
        await until(second, lambda: "AGAIN" in assistant_texts(second, parent))
        assert second.events_after(len(history))[0].sequence == len(history) + 1


async def test_recovery_interrupts_runs_that_were_live_at_a_crash(tmp_path: Path) -> None:
    async with open_engine(tmp_path) as first:
        thread_id = await launch(first, "Hang")
        await until(first, lambda: row(first, thread_id)["activityRunStatus"] == "running")
        await first.dispatch(message(thread_id, "Reply AFTER", "queue_after_active"))
        head = first.head
        await crash(first)
    async with open_engine(tmp_path) as second:
        recovered = second.events_after(head)
        assert recovered and all(e.command_id is None for e in recovered)
        runs = second.state(thread_id).runs()
        assert runs[0]["status"] == "interrupted"
        assert notices(second, thread_id) == [RESTART_NOTICE]
        # the acknowledged queued message still runs
        await until(second, lambda: "AFTER" in assistant_texts(second, thread_id))
        assert second.state(thread_id).values("providerSessions")[0]["status"] == "stopped"


async def test_shutdown_kills_agents_and_records_it(tmp_path: Path) -> None:
    async with open_engine(tmp_path) as first:
        thread_id = await launch(first, "Run `echo pid=$$; exec sleep 30`")

        def pid() -> int | None:
            out = "".join(i.get("output") or "" for i in first.state(thread_id)
                          .values("turnItems"))
            found = re.search(r"pid=(\d+)", out)
            return int(found.group(1)) if found else None

        leader = await until(first, pid)
        assert pid_alive(leader)
    assert not pid_alive(leader)
    async with open_engine(tmp_path) as second:
        head = second.head
        assert row(second, thread_id)["status"] == "interrupted"
        assert notices(second, thread_id) == [SHUTDOWN_NOTICE]
        assert second.head == head  # nothing left for recovery to do


async def test_a_queued_run_whose_provider_is_gone_fails_with_a_reason(tmp_path: Path) -> None:
    extra = (ProviderInstanceConfig(name="extra"),)
    async with open_engine(tmp_path, providers=extra) as first:
        thread_id = await launch(first, "Hang", provider="extra")
        await until(first, lambda: row(first, thread_id)["activityRunStatus"] == "running")
        await first.dispatch(message(thread_id, "Reply LATER", "queue_after_active"))
        await crash(first)
    async with open_engine(tmp_path) as second:  # only the default `codex` instance
        shell = row(second, thread_id)
        assert shell["status"] == "failed"
        assert shell["lastError"] == "Provider extra is not available."
