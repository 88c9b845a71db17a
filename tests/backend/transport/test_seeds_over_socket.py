"""Both seed reproductions driven through the protocol alone, as a supervisor would see them.

The agent prompts come from the engine's scenario files (`parallel-probe`,
`settle-unsubscribe`) with short timings; everything else is `launchThread`,
`dispatchCommand`, `subscribeShell`, `subscribeThread` and `getThreadProjection` over a real
socket. Timelines are read with the engine tests' `task_timelines`, fed thread-stream items.
"""

from __future__ import annotations

import json
from typing import Any

from t3tui.backend.provider import SETTLE_DROPS_CHILD_SUBSCRIPTION, read_log
from t3tui.backend.scenarios import load_scenario
from t3tui.backend.testing import running_backend, wait_until
from tests.backend.seeds.timelines import task_timelines
from tests.backend.transport.commands import MODEL, PROJECT_ID, message, settle
from tests.backend.transport.rawclient import RawRpc

SHELL = "orchestration.subscribeShell"
THREAD = "orchestration.subscribeThread"
DISPATCH = "orchestration.dispatchCommand"
LAUNCH = "orchestration.launchThread"
PROJECTION = "orchestration.getThreadProjection"
# Short timings, with a wide margin between the wait budget and the child's work.
FAST_PROBE = {"timeoutMs": 800, "sleep": 2.5}
TERMINAL = ("completed", "failed", "cancelled", "interrupted")


def scenario_text(name: str, params: dict[str, Any] | None = None) -> str:
    """The first launch prompt of a bundled scenario."""
    return load_scenario(name, params).steps[0]["text"]


def launch(thread_id: str, text: str) -> dict[str, Any]:
    return {
        "commandId": f"c-launch-{thread_id}",
        "creationSource": "web",
        "projectId": PROJECT_ID,
        "threadId": thread_id,
        "title": thread_id,
        "modelSelection": MODEL,
        "runtimeMode": "full-access",
        "interactionMode": "default",
        "workspaceStrategy": {"type": "root"},
        "initialMessage": {"text": text, "attachments": []},
    }


class ShellView:
    """Rows kept current from a shell stream, plus the sequence each row first appeared at."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, Any]] = {}
        self.first_seen: dict[str, int] = {}

    def apply(self, item: dict[str, Any]) -> None:
        if item["kind"] == "snapshot":
            for row in item["snapshot"]["threads"]:
                self.rows[row["id"]] = row
                self.first_seen.setdefault(row["id"], item["snapshot"]["snapshotSequence"])
        elif item["kind"] == "thread.updated":
            self.rows[item["thread"]["id"]] = item["thread"]
            self.first_seen.setdefault(item["thread"]["id"], item["sequence"])

    def children(self, parent: str) -> list[dict[str, Any]]:
        return [r for r in self.rows.values() if r["lineage"].get("parentThreadId") == parent]

    async def follow(self, client: RawRpc, rid: str, done: Any, timeout: float = 30.0) -> None:
        def step(item: dict[str, Any]) -> bool:
            self.apply(item)
            return bool(done())

        if not done():
            await client.items_until(rid, step, timeout)


async def thread_history(client: RawRpc, thread_id: str) -> list[dict[str, Any]]:
    """Every event of a thread, replayed from sequence 0 over a thread stream."""
    rid = await client.request(
        THREAD, {"threadId": thread_id, "afterSequence": 0, "requestCompletionMarker": True}
    )
    items = await client.items_until(rid, lambda item: item["kind"] == "synchronized")
    await client.send({"_tag": "Interrupt", "requestId": rid})
    return [item for item in items if item["kind"] == "event"]


async def run_probe(dispatch: str) -> dict[str, Any]:
    async with (
        running_backend(dispatch=dispatch) as backend,
        await RawRpc.open(backend.url, backend.token) as client,
    ):
        view = ShellView()
        rid = await client.request(SHELL, {}, auto_ack=True)
        await client.ok(LAUNCH, launch("probe", scenario_text("parallel-probe", FAST_PROBE)))

        def finished() -> bool:
            kids = view.children("probe")
            return (
                len(kids) == 2
                and all(k["status"] in TERMINAL for k in kids)
                and view.rows["probe"]["status"] in TERMINAL
            )

        await view.follow(client, rid, finished)
        projection = await client.ok(PROJECTION, {"threadId": "probe"})
        history = await thread_history(client, "probe")
    tools = [
        json.loads(item["output"])
        for item in projection["turnItems"]
        if item["type"] == "dynamic_tool" and item["toolName"] == "delegate_task"
    ]
    return {"view": view, "history": history, "tools": tools, "projection": projection}


def child_rows_by_task(probe: dict[str, Any]) -> dict[str, dict[str, Any]]:
    by_thread = {row["id"]: row for row in probe["view"].children("probe")}
    return {sub["id"]: by_thread[sub["childThreadId"]] for sub in probe["projection"]["subagents"]}


async def test_seed_000_serial_dispatch_shows_b_only_after_as_wait_timed_out():
    probe = await run_probe("serial")
    lines = task_timelines(probe["history"], "probe")
    a, b = lines["parallel-probe-1-a"], lines["parallel-probe-1-b"]
    assert a.created < a.wait_returned < b.created < b.wait_returned
    assert [tool["waitTimedOut"] for tool in probe["tools"]] == [True, True]
    # What a supervisor sees on the shell stream: B's row shows up only after A's wait ended.
    rows = child_rows_by_task(probe)
    assert probe["view"].first_seen[rows[b.task_id]["id"]] > a.wait_returned
    assert all(row["latestVisibleMessage"]["text"] == "PROBE_COMPLETE" for row in rows.values())


async def test_seed_000_parallel_dispatch_overlaps_both_children():
    probe = await run_probe("parallel")
    lines = task_timelines(probe["history"], "probe")
    a, b = lines["parallel-probe-1-a"], lines["parallel-probe-1-b"]
    assert b.created < a.wait_returned and a.created < b.wait_returned
    assert [tool["waitTimedOut"] for tool in probe["tools"]] == [True, True]
    first, second = child_rows_by_task(probe).values()
    assert first["latestRunStartedAt"] < second["latestRunCompletedAt"]
    assert second["latestRunStartedAt"] < first["latestRunCompletedAt"]


async def shell_row_now(client: RawRpc, thread_id: str) -> dict[str, Any]:
    """The row as a fresh subscriber's snapshot shows it."""
    rid = await client.request(SHELL, {})
    [snapshot] = (await client.next(rid))["values"]
    await client.send({"_tag": "Interrupt", "requestId": rid})
    return next(row for row in snapshot["snapshot"]["threads"] if row["id"] == thread_id)


async def settle_parent_then_check_in(faults: list[str]) -> dict[str, Any]:
    async with (
        running_backend(faults=faults) as backend,
        await RawRpc.open(backend.url, backend.token) as client,
    ):
        view = ShellView()
        rid = await client.request(SHELL, {}, auto_ack=True)
        await client.ok(LAUNCH, launch("parent", scenario_text("settle-unsubscribe")))

        def ready() -> bool:
            kids = view.children("parent")
            return (
                len(kids) == 1
                and kids[0]["status"] == "completed"
                and view.rows["parent"]["status"] == "completed"
                and not view.rows["parent"]["activeRunId"]
            )

        await view.follow(client, rid, ready)
        [child] = view.children("parent")
        assert child["latestVisibleMessage"]["text"] == "READY"
        settled = (await client.ok(DISPATCH, settle("parent")))["sequence"]
        await client.ok(DISPATCH, message(child["id"], "Reply PONG"))
        log_path = backend.data_dir / "provider-logs" / "codex.jsonl"

        def pong_logged() -> dict[str, Any] | None:
            return next(
                (
                    entry
                    for entry in read_log(log_path)
                    if entry["event"] == "turn.completed"
                    and entry.get("appThreadId") == child["id"]
                    and entry.get("reply") == "PONG"
                ),
                None,
            )

        # The provider logs and notifies in one step: once the line is there, the
        # orchestration has either recorded the turn or never will.
        await wait_until(pong_logged, timeout=15, what="the provider completes PONG")
        seen = {
            "row": await shell_row_now(client, child["id"]),
            "projection": await client.ok(PROJECTION, {"threadId": child["id"]}),
            "parent_events": [
                item["event"]
                for item in await thread_history(client, "parent")
                if item["sequence"] > settled - 2
            ],
        }
        if not faults:

            def pong_run_done() -> bool:
                row = view.rows[child["id"]]
                return row["latestRunId"] != child["latestRunId"] and row["status"] == "completed"

            await view.follow(client, rid, pong_run_done)
            seen["row"] = view.rows[child["id"]]
        return seen


def assert_parent_settled_and_detached(parent_events: list[dict[str, Any]]) -> None:
    types = [event["type"] for event in parent_events]
    assert types[:2] == ["thread.settled", "provider-session.detached"]
    assert parent_events[1]["payload"]["reason"] == "Thread settled."


async def test_seed_004_fault_on_child_stays_running_while_the_provider_log_shows_pong():
    seen = await settle_parent_then_check_in([SETTLE_DROPS_CHILD_SUBSCRIPTION])
    assert_parent_settled_and_detached(seen["parent_events"])
    projection, row = seen["projection"], seen["row"]
    assert projection["runs"][-1]["status"] == "running"
    assert projection["providerTurns"][-1]["status"] == "running"
    assert "PONG" not in [m["text"] for m in projection["messages"] if m["role"] == "assistant"]
    assert row["status"] == "running" and row["activityRunStatus"] == "running"
    assert row["latestVisibleMessage"]["text"] == "Reply PONG"


async def test_seed_004_fault_off_pong_arrives_and_the_run_completes():
    seen = await settle_parent_then_check_in([])
    assert_parent_settled_and_detached(seen["parent_events"])
    assert seen["row"]["status"] == "completed"
    assert seen["row"]["latestVisibleMessage"]["text"] == "PONG"
