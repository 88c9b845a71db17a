"""Commands over the socket: idempotency, the settle guard, launches, and a real agent turn."""

from __future__ import annotations

import os
from pathlib import Path

from t3tui.backend.testing import descendant_pids, pid_alive, running_backend, wait_until
from tests.backend.transport.commands import MODEL, PROJECT_ID, settle, thread_create
from tests.backend.transport.rawclient import RawRpc

SHELL = "orchestration.subscribeShell"
DISPATCH = "orchestration.dispatchCommand"
LAUNCH = "orchestration.launchThread"
PROJECTION = "orchestration.getThreadProjection"


def launch(thread_id: str, text: str, command_id: str | None = None) -> dict:
    return {
        "commandId": command_id or f"c-launch-{thread_id}",
        "creationSource": "web",
        "projectId": PROJECT_ID,
        "threadId": thread_id,
        "title": f"Launch {thread_id}",
        "modelSelection": MODEL,
        "runtimeMode": "full-access",
        "interactionMode": "default",
        "workspaceStrategy": {"type": "root"},
        "initialMessage": {"text": text, "attachments": []},
    }


def fail_error(exit_: dict) -> dict:
    assert exit_["_tag"] == "Failure", exit_
    [cause] = exit_["cause"]
    assert cause["_tag"] == "Fail", cause
    return cause["error"]


def shell_row(backend, thread_id: str) -> dict:
    return backend.engine.shell_row(thread_id).to_wire()


async def test_a_repeated_command_returns_the_first_result_and_does_nothing_more(backend):
    create = thread_create("thread-i1", command_id="c-idem-1")
    async with await RawRpc.open(backend.url, backend.token) as client:
        first = await client.ok(DISPATCH, create)
        head = backend.engine.head
        assert await client.ok(DISPATCH, create) == first
    # A reconnecting client retries with the same commandId on a new socket.
    async with await RawRpc.open(backend.url, backend.token) as client:
        assert await client.ok(DISPATCH, create) == first
        snapshot = await client.request(SHELL, {})
        [item] = (await client.next(snapshot))["values"]
    assert backend.engine.head == head
    ids = [row["id"] for row in item["snapshot"]["threads"]]
    assert ids.count("thread-i1") == 1


async def test_settle_guard_refusal_is_a_typed_fail(backend):
    async with await RawRpc.open(backend.url, backend.token) as client:
        await client.ok(LAUNCH, launch("thread-busy", "Run `sleep 30`, then reply DONE"))
        await wait_until(
            lambda: shell_row(backend, "thread-busy").get("activeRunId"), what="run starts"
        )
        error = fail_error(await client.call(DISPATCH, settle("thread-busy", command_id="c-s1")))
        assert error["_tag"] == "OrchestrationV2DispatchCommandError"
        assert error["commandId"] == "c-s1" and error["commandType"] == "thread.settle"
        assert error["message"] == (
            "Thread thread-busy has active or blocked work and cannot be settled."
        )
        # Refused, not applied: the thread is not settled and the socket still works.
        assert shell_row(backend, "thread-busy").get("settledOverride") != "settled"
        assert await client.ok("server.probe", {}) == {}


async def test_commands_on_unknown_threads_and_unknown_types_are_rejected(backend):
    async with await RawRpc.open(backend.url, backend.token) as client:
        error = fail_error(await client.call(DISPATCH, settle("thread-ghost")))
        assert error["_tag"] == "OrchestrationV2DispatchCommandError" and error["message"]
        odd = {"type": "thread.teleport", "commandId": "c-odd", "threadId": "x"}
        error = fail_error(await client.call(DISPATCH, odd))
        assert error["commandType"] == "thread.teleport"
        error = fail_error(await client.call(PROJECTION, {"threadId": "thread-ghost"}))
        assert error["_tag"] == "OrchestrationV2GetThreadProjectionError"


def rows_of(item: dict) -> list[dict]:
    """The shell rows a shell stream item carries."""
    if item["kind"] == "snapshot":
        return item["snapshot"]["threads"]
    return [item["thread"]] if item["kind"] == "thread.updated" else []


async def test_launch_then_reply_pong_completes_the_run(backend):
    async with await RawRpc.open(backend.url, backend.token) as client:
        result = await client.ok(LAUNCH, launch("thread-pong", "Reply PONG"))
        assert result["threadId"] == "thread-pong" and result["resumed"] is False
        assert result["projection"]["thread"]["id"] == "thread-pong"

        def done(row: dict) -> bool:
            return row["id"] == "thread-pong" and row["status"] == "completed"

        rid = await client.request(SHELL, {}, auto_ack=True)
        items = await client.items_until(rid, lambda item: any(map(done, rows_of(item))))
        [row] = [r for r in rows_of(items[-1]) if done(r)]
        assert row["latestVisibleMessage"]["text"] == "PONG"
        projection = await client.ok(PROJECTION, {"threadId": "thread-pong"})
        assert [m["text"] for m in projection["messages"] if m["role"] == "assistant"] == ["PONG"]
        # The same launch again (same commandId) is not a second thread or a second turn.
        repeat = await client.ok(LAUNCH, launch("thread-pong", "Reply PONG"))
        assert repeat["threadId"] == "thread-pong"
        assert len(repeat["projection"]["runs"]) == 1


def agent_pids_running(marker: str) -> set[int]:
    """Descendants of this test process whose command line holds `marker`."""
    found = set()
    for pid in descendant_pids(os.getpid()):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline:
            found.add(pid)
    return found


async def test_closing_the_backend_kills_its_agent_processes():
    marker = "sleep 41.25"
    async with (
        running_backend() as backend,
        await RawRpc.open(backend.url, backend.token) as client,
    ):
        await client.ok(LAUNCH, launch("thread-sleeper", f"Run `{marker}`, then reply DONE"))
        agents = await wait_until(lambda: agent_pids_running(marker), what="the agent process")
    await wait_until(lambda: not any(pid_alive(pid) for pid in agents), what="agent processes end")
