"""Issue 23, end to end: the stop rules see a top-level thread that nobody opened.

The reference backend runs the top-level variants of the stop scenarios (real agent
processes); `t3tui watch` flags the fault while it happens and a one-shot `t3tui status
--json` started after the dwell reports it, with the default dwells, as do `report`, a
recording replayed (`status --replay`) and a post-mortem of the backend's T3-shaped database
(`status --t3-db`). The healthy controls run
with scaled dwells through the client's session: the thread is watched, and stays clean.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from t3tui.backend.testing import RunningBackend, running_backend, wait_until
from t3tui.client.secret import resolve_target
from t3tui.client.session import Session
from t3tui.model import Supervisor
from tests.headless.cli import cli, server_args
from tests.headless.test_commands_e2e import active_run, launch
from tests.headless.test_second_wave_e2e import CFG, never, now, watching

pytestmark = pytest.mark.e2e


async def watch_until_finding(backend: RunningBackend, rule: str, timeout: float) -> dict[str, Any]:
    """`t3tui watch --ndjson` until it prints a finding of `rule`; that line."""
    env = dict(os.environ, T3TUI_URL=backend.url, T3TUI_TOKEN=backend.token)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "t3tui", "watch", "--ndjson",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    try:
        while True:
            raw = await asyncio.wait_for(proc.stdout.readline(), max(0.1, deadline - loop.time()))
            assert raw, (await proc.stderr.read()).decode()
            line = json.loads(raw)
            if line.get("kind") == "finding" and line["finding"]["rule"] == rule:
                return line
    finally:
        proc.terminate()
        await proc.wait()


async def status_json(backend: RunningBackend) -> dict[str, Any]:
    result = await cli("status", "--json", *server_args(backend))
    assert result.code == 1, result
    return result.json()


@pytest.mark.parametrize(("scenario", "thread", "rule"), [
    ("stop-never-lands-top-level", "thread-stop-top", "interrupt-not-landed"),
    ("runaway-provider-top-level", "thread-runaway-top", "provider-active-after-interrupt"),
])
async def test_a_top_level_fault_nobody_opened_is_seen_by_watch_and_a_later_status(
        scenario: str, thread: str, rule: str, tmp_path: Path) -> None:
    state = tmp_path / "t3"
    async with running_backend(scenario=scenario, t3_state=state) as backend:
        seen = await watch_until_finding(backend, rule, 45)
        assert seen["threadId"] == thread
        doc = await status_json(backend)  # a one-shot started after the dwell
        found = [f for f in doc["findings"] if f["rule"] == rule]
        assert [f["threadId"] for f in found] == [thread]
        [row] = [t for t in doc["threads"] if t["id"] == thread]
        assert row["parentId"] is None and row["depth"] == 0  # top level, no family
        assert doc["environments"][0]["watching"]["unwatched"] == 0
        # the other entry points: a live report, a recording replayed, T3's own database
        report = await cli("report", *server_args(backend))
        assert report.code == 0 and f"`{thread}`" in report.out, report
        path = tmp_path / "top.ndjson.gz"
        recorded = await cli("record", "-o", str(path), "--duration", "1", *server_args(backend))
        assert recorded.code == 0, recorded.err
        post = await cli("status", "--t3-db", str(state), "--json", "--claude-home", "off",
                         "--codex-home", str(backend.data_dir / "codex-home"),
                         "--t3-home", str(state))
        assert [f["threadId"] for f in post.json()["findings"] if f["rule"] == rule] == [thread]
    replayed = (await cli("status", "--replay", str(path), "--json")).json()
    assert [f["threadId"] for f in replayed["findings"] if f["rule"] == rule] == [thread]


async def test_control_a_slow_stop_that_lands_on_a_top_level_thread_is_not_flagged() -> None:
    params = {"faults": [], "interruptDelayMs": 3000}  # 15 s of 20 s, scaled
    async with running_backend(scenario="stop-never-lands-top-level",
                               scenario_params=params) as backend, \
            watching(backend) as (session, sup):
        thread = "thread-stop-top"
        assert thread in session.subscribed_threads  # watched, though nobody opened it
        ended = await session.wait_until(
            lambda: (r := sup.view(now()).row(thread)) and r.run_status == "interrupted", 15)
        assert ended, "the slow stop never landed"
        await never(session, sup, "interrupt-not-landed", CFG.interrupt_landing_dwell_s + 1)


async def test_control_a_top_level_provider_that_winds_down_in_time_is_not_flagged() -> None:
    params = {"faults": [], "interruptDelayMs": 1000}
    async with running_backend(scenario="runaway-provider-top-level",
                               scenario_params=params) as backend, \
            watching(backend) as (session, sup):
        thread = "thread-runaway-top"
        assert thread in session.subscribed_threads
        # what the proof layer looks up on the machine: this thread's provider record too
        assert await session.wait_until(lambda: thread in sup.native_threads(), 10)

        def wound_down() -> bool:
            proj = backend.engine.projection(thread)
            return bool(proj.provider_turns) and all(t.status != "running" for t in proj.provider_turns)
        assert await session.wait_until(wound_down, 15)
        await never(session, sup, "provider-active-after-interrupt",
                    CFG.provider_after_interrupt_dwell_s + 1)


async def test_past_the_cap_the_count_is_honest_and_a_dropped_thread_is_not_flagged(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Three top-level threads busy, two streams allowed: the stop that never lands is the
    least recently active, so it is not watched, nothing is said of it, and every output
    says that one active thread is not watched."""
    async with running_backend(scenario="stop-never-lands-top-level") as backend:
        # the scenario's Stop is the stopped thread's last activity: launched before it lands,
        # a busy thread could be the least recently active instead
        def stop_requested() -> bool:
            if backend.engine.shell_row("thread-stop-top") is None:
                return False
            items = backend.engine.projection("thread-stop-top").turn_items
            return any(i.type == "run_interrupt_request" for i in items)
        await wait_until(stop_requested, timeout=30)
        busy = [await launch(backend, "Hang", title=f"Busy {i}") for i in range(2)]
        for thread in busy:
            await wait_until(lambda t=thread: active_run(backend, t), timeout=15)
        sup = Supervisor(config=CFG)
        session = Session(resolve_target(backend.url, backend.token), sup, watch_cap=2)
        runner = asyncio.create_task(session.run())
        try:
            await session.wait_synchronized(15)
            assert session.subscribed_threads == set(busy)
            watching = sup.view(now()).watching
            assert watching is not None and (watching.active, watching.watched) == (3, 2)
            await never(session, sup, "interrupt-not-landed", CFG.interrupt_landing_dwell_s + 1)
            assert not [f for f in sup.view(now()).findings if f.thread_id == "thread-stop-top"]
        finally:
            await session.stop()
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
        monkeypatch.setenv("T3TUI_WATCH_CAP", "2")
        doc = (await cli("status", "--json", *server_args(backend))).json()
        assert doc["environments"][0]["watching"] == {"active": 3, "watched": 2,
                                                      "unwatched": 1, "cap": 2}
        human = await cli("status", *server_args(backend))
        assert "watching 2 of 3 active threads (T3TUI_WATCH_CAP raises the cap)" in human.out
