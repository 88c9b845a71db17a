"""settle / interrupt / watch / auth errors through the real CLI against the reference backend."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import os
import signal
import sys
from typing import Any

import pytest

from t3tui.backend.auth import generate_token
from t3tui.backend.server import BackendOptions, open_backend
from t3tui.backend.testing import RunningBackend, running_backend, wait_until
from tests.ctrl_c import as_from_a_terminal
from tests.headless.cli import cli, server_args

pytestmark = pytest.mark.e2e

_ids = itertools.count(1)
WAIT_ON_HANGER = (
    'delegate_task {"task": "Hang", "title": "Hanger", "mode": "wait", "timeoutMs": 60000, '
    '"clientRequestId": "hang-%d"}\nReply PARENT_DONE'
)
ASYNC_HANGER_THEN_HANG = (
    'delegate_task {"task": "Hang", "title": "Hanger", "mode": "async", '
    '"clientRequestId": "async-hang"}\nHang'
)


async def launch(backend: RunningBackend, text: str, title: str = "test thread") -> str:
    thread_id = f"thread-cli-{next(_ids)}"
    await backend.engine.launch_thread({
        "commandId": f"launch-{thread_id}", "creationSource": "web", "projectId": "project-1",
        "threadId": thread_id, "title": title,
        "modelSelection": {"instanceId": "codex", "model": "m"},
        "runtimeMode": "full-access", "interactionMode": "default",
        "workspaceStrategy": {"type": "root"},
        "initialMessage": {"text": text, "attachments": []},
    })
    return thread_id


def active_run(backend: RunningBackend, thread_id: str) -> str | None:
    row = backend.engine.shell_row(thread_id)
    return None if row is None else row.active_run_id


def running_child(backend: RunningBackend, parent_id: str) -> str | None:
    for row in backend.engine.shell_snapshot().threads:
        if row.lineage.parent_thread_id == parent_id and row.status == "running":
            return row.id
    return None


@pytest.fixture
async def backend() -> Any:
    async with running_backend() as started:
        yield started


async def test_a_wrong_token_is_exit_2_with_a_clear_line(backend: RunningBackend) -> None:
    result = await cli("status", "--url", backend.url, "--token", "not-the-token-123")
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("t3tui: authentication needed")
    assert len(result.err.strip().splitlines()) == 1
    assert "not-the-token-123" not in result.err and backend.token not in result.err


async def test_interrupt_confirms_from_the_stream_then_has_nothing_left(backend) -> None:
    thread = await launch(backend, "Hang", title="Hangs [bold]forever[/bold]")
    run_id = await wait_until(lambda: active_run(backend, thread), timeout=10)
    result = await cli("interrupt", thread, *server_args(backend))
    assert result.code == 0, result
    assert result.out.startswith(f"run {run_id} interrupted")
    assert "[bold]forever[/bold]" in result.out  # agent text is printed, never interpreted
    again = await cli("interrupt", thread, *server_args(backend))
    assert again.code == 1 and again.out.startswith("nothing to interrupt")


async def test_interrupt_child_stops_the_child_a_hung_wait_is_blocked_on(backend) -> None:
    parent = await launch(backend, WAIT_ON_HANGER % 1, title="Waits on a hanger")
    child = await wait_until(lambda: running_child(backend, parent), timeout=10)
    child_run = active_run(backend, child)
    result = await cli("interrupt", parent, "--child", *server_args(backend))
    assert result.code == 0, result
    assert result.out.startswith(f"run {child_run} interrupted") and "Hanger" in result.out
    assert active_run(backend, child) is None


async def test_interrupt_parent_stops_the_parents_run_not_the_child(backend) -> None:
    parent = await launch(backend, ASYNC_HANGER_THEN_HANG, title="Hangs next to its child")
    child = await wait_until(lambda: running_child(backend, parent), timeout=10)
    parent_run = active_run(backend, parent)
    result = await cli("interrupt", child, "--parent", *server_args(backend))
    assert result.code == 0, result
    assert result.out.startswith(f"run {parent_run} interrupted")
    assert active_run(backend, child) is not None  # app-owned children keep running


async def test_interrupt_child_without_a_hung_wait_says_why(backend) -> None:
    thread = await launch(backend, "Reply READY")
    await wait_until(lambda: backend.engine.shell_row(thread).status == "completed", timeout=10)
    result = await cli("interrupt", thread, "--child", *server_args(backend))
    assert result.code == 2
    assert result.err == f"t3tui: {thread} is not blocked in a wait on a running child\n"


async def test_settle_shows_the_servers_refusal_verbatim(backend) -> None:
    thread = await launch(backend, "Hang")
    await wait_until(lambda: active_run(backend, thread), timeout=10)
    result = await cli("settle", thread, *server_args(backend))
    assert result.code == 1
    assert f"Thread {thread} has active or blocked work and cannot be settled." in result.out


async def test_an_unknown_thread_is_a_clear_error(backend) -> None:
    result = await cli("checkin", "no-such-thread", *server_args(backend))
    assert (result.code, result.err) == (2, "t3tui: no thread 'no-such-thread' on this server\n")


async def test_watch_prints_live_changes_only_and_stops_on_ctrl_c(backend) -> None:
    thread = await launch(backend, "Reply READY", title="Watched")
    await wait_until(lambda: backend.engine.shell_row(thread).status == "completed", timeout=10)
    env = dict(os.environ, T3TUI_URL=backend.url, T3TUI_TOKEN=backend.token)
    # A child inherits an ignored SIGINT, and a whole suite started as a background job of a
    # non-interactive shell runs with SIGINT and SIGQUIT ignored (tests/ctrl_c.py says how
    # that was found): start watch with Ctrl-C's default, as a terminal would.
    with as_from_a_terminal():
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "t3tui", "watch", "--ndjson",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
        )
    assert proc.stdout is not None and proc.stderr is not None
    lines: list[dict[str, Any]] = []

    async def next_line() -> dict[str, Any]:
        raw = await asyncio.wait_for(proc.stdout.readline(), 15)
        assert raw, (await proc.stderr.read()).decode()
        lines.append(json.loads(raw))
        return lines[-1]

    try:
        first = await next_line()
        assert (first["kind"], first["state"]) == ("connection", "live")
        await backend.engine.dispatch({
            "type": "message.dispatch", "commandId": "c-watch", "createdBy": "user",
            "creationSource": "web", "threadId": thread, "messageId": "m-watch",
            "text": "Run `sleep 1` then Reply PONG", "attachments": [],
            "dispatchMode": {"type": "start_immediately"},
        })
        while not (lines[-1].get("threadId") == thread and lines[-1].get("from") == "running"):
            await next_line()
    finally:
        proc.send_signal(signal.SIGINT)
        # both pipes are read while it exits: a child blocked writing to a full pipe that
        # nobody reads never exits (what `Process.wait` alone would wait for)
        try:
            async with asyncio.timeout(15):
                _, err_bytes = await proc.communicate()
        except TimeoutError:  # say what it was doing: it has never hung alone, only in a suite
            proc.kill()
            out_bytes, err_bytes = await proc.communicate()
            raise AssertionError(f"watch still ran 15 s after SIGINT; it wrote "
                                 f"{out_bytes[-1500:]!r} / {err_bytes[-1500:]!r}") from None
    code, err = proc.returncode, err_bytes.decode()
    assert code == 130 and "Traceback" not in err, (code, err[-2000:])
    states = [(x["from"], x["to"]) for x in lines if x["kind"] == "state"]
    assert states[0][0] == "idle" and states[-1][0] == "running"
    assert "running" in {to for _, to in states}
    # the first run ("Reply READY") was history: only the new run left `idle`
    assert [old for old, _ in states].count("idle") == 1


async def test_checkin_on_a_lone_thread_is_answered_with_latency(backend) -> None:
    thread = await launch(backend, "Reply READY")
    await wait_until(lambda: backend.engine.shell_row(thread).status == "completed", timeout=10)
    result = await cli("checkin", thread, "--timeout", "10", *server_args(backend))
    assert result.code == 0, result
    assert result.out.startswith("answered in ")
    assert result.out.count("answered") == 1 and "in 0.0s" not in result.out


async def test_checkin_on_a_busy_thread_without_queueing_is_busy(backend) -> None:
    thread = await launch(backend, "Hang")
    await wait_until(lambda: active_run(backend, thread), timeout=10)
    result = await cli("checkin", thread, "--no-queue", "--json", *server_args(backend))
    assert result.code == 1, result
    assert result.json()["verdict"] == "busy"
    assert len(backend.engine.projection(thread).runs) == 1  # nothing was sent


async def test_watch_ends_with_exit_2_when_the_restarted_server_refuses_the_token(
    tmp_path: Any,
) -> None:
    options = BackendOptions(data_dir=tmp_path, token=generate_token(), port=0)
    async with open_backend(options) as first:
        port, url, token = first.port, first.url, first.token
        env = dict(os.environ, T3TUI_URL=url, T3TUI_TOKEN=token)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "t3tui", "watch", "--ndjson",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
        )
        assert proc.stdout is not None and proc.stderr is not None
        first_line = json.loads(await asyncio.wait_for(proc.stdout.readline(), 15))
        assert first_line["state"] == "live"
    # Same port, new token: the reconnect is refused for good.
    renewed = dataclasses.replace(options, port=port, token=generate_token())
    try:
        async with open_backend(renewed):
            code = await asyncio.wait_for(proc.wait(), 20)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    err = (await proc.stderr.read()).decode()
    assert code == 2, err
    assert err.startswith("t3tui: authentication needed") and len(err.splitlines()) == 1
    assert token not in err and renewed.token not in err
