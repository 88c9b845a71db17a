"""Issue 10, end to end: each field failure reproduced by the reference backend (a named fault
or scenario, real agent processes) and seen by the real client over real sockets, each with a
healthy control that must not fire. Dwells are scaled down (same ratios as the defaults) so
the tests take seconds, not minutes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from t3tui.backend.testing import pid_alive, running_backend
from t3tui.client.secret import resolve_target
from t3tui.client.session import Session
from t3tui.model import DetectorConfig, Finding, Supervisor, SupervisorView

pytestmark = pytest.mark.e2e

# default ratios: stop 20 s (control lands at 15 s), provider wind-down 15 s, undelivered 60 s
CFG = DetectorConfig(interrupt_landing_dwell_s=4.0, provider_after_interrupt_dwell_s=3.0,
                     undelivered_dwell_s=2.0, orphaned_dwell_s=1.0)


def child_of(sup: Supervisor, parent: str) -> str:
    [child] = sup.view(now()).row(parent).children
    return child


def now() -> datetime:
    return datetime.now(UTC)


@contextlib.asynccontextmanager
async def watching(backend, config: DetectorConfig = CFG) -> AsyncIterator[tuple[Session, Supervisor]]:
    sup = Supervisor(config=config)
    session = Session(resolve_target(backend.url, backend.token), sup)
    runner = asyncio.create_task(session.run())
    try:
        await session.wait_synchronized(15)
        yield session, sup
    finally:
        await session.stop()
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)


def rule_on(view: SupervisorView, rule: str) -> Finding | None:
    return next((f for f in view.findings if f.rule == rule), None)


async def finding(session: Session, sup: Supervisor, rule: str, timeout: float) -> Finding | None:
    return await session.wait_until(lambda: rule_on(sup.view(now()), rule), timeout)


async def never(session: Session, sup: Supervisor, rule: str, seconds: float) -> None:
    """`rule` does not fire for `seconds` (each update and every 0.25 s is checked)."""
    assert await finding(session, sup, rule, seconds) is None


# -- a stop that never lands --

async def test_stop_that_never_lands_is_flagged_with_who_asked_and_what_runs() -> None:
    async with running_backend(scenario="stop-never-lands") as backend, \
            watching(backend) as (session, sup):
        found = await finding(session, sup, "interrupt-not-landed", 15)
        child = child_of(sup, "thread-stop-me")
        assert found is not None and found.kind == "stuck" and found.thread_id == child
        assert found.evidence["requestedBy"] == "Interrupt requested."
        assert found.evidence["activityRunStatus"] == "running"
        assert sup.view(now()).row(child).state == "stuck"
        log = [e["event"] for e in backend.engine.provider_log("codex")]
        assert "turn.interrupt-ignored" in log and "turn.interrupted" not in log


async def test_control_a_slow_stop_that_lands_before_the_dwell_is_not_flagged() -> None:
    params = {"faults": [], "interruptDelayMs": 3000}  # 15 s of 20 s, scaled
    async with running_backend(scenario="stop-never-lands", scenario_params=params) as backend, \
            watching(backend) as (session, sup):
        child = child_of(sup, "thread-stop-me")
        ended = await session.wait_until(
            lambda: (r := sup.view(now()).row(child)) and r.run_status == "interrupted", 15)
        assert ended, "the slow stop never landed"
        await never(session, sup, "interrupt-not-landed", CFG.interrupt_landing_dwell_s + 1)
        items = backend.engine.projection(child).turn_items
        assert {"run_interrupt_request", "run_interrupt_result"} <= {i.type for i in items}


# -- the provider keeps going after the run was interrupted --

async def test_interrupted_run_whose_provider_runs_on_is_flagged_and_the_process_lives() -> None:
    async with running_backend(scenario="runaway-provider") as backend, \
            watching(backend) as (session, sup):
        found = await finding(session, sup, "provider-active-after-interrupt", 15)
        assert found is not None and found.kind == "runaway_provider"
        assert "CPU" in found.reason
        assert any(part.startswith("provider turn") for part in found.evidence["stillActive"])
        row = sup.view(now()).row(found.thread_id)
        assert found.thread_id == child_of(sup, "thread-runaway")
        assert row.run_status == "interrupted" and row.state != "running"
        # the process really is still there
        pids = [e["pid"] for e in backend.engine.provider_log("codex") if e["event"] == "command.started"]
        assert pids and pid_alive(pids[-1])


async def test_control_a_provider_that_winds_down_within_the_dwell_is_not_flagged() -> None:
    params = {"faults": [], "interruptDelayMs": 1000}
    async with running_backend(scenario="runaway-provider", scenario_params=params) as backend, \
            watching(backend) as (session, sup):
        child = child_of(sup, "thread-runaway")

        def wound_down() -> bool:
            proj = backend.engine.projection(child)
            return bool(proj.provider_turns) and all(t.status != "running" for t in proj.provider_turns)
        assert await session.wait_until(wound_down, 15)
        await never(session, sup, "provider-active-after-interrupt",
                    CFG.provider_after_interrupt_dwell_s + 1)


# -- a wait that died at the client's ceiling, then the same work delegated again --

async def test_redelegation_after_a_dead_wait_is_a_duplicate_and_twins_on_purpose_are_not() -> None:
    params = {"toolTimeoutMs": 1500}
    async with running_backend(scenario="duplicate-delegation", scenario_params=params) as backend, \
            watching(backend) as (session, sup):
        found = await finding(session, sup, "duplicate-child", 20)
        assert found is not None and found.kind == "duplicate_child"
        assert found.thread_id == "thread-retry"
        ev = found.evidence
        assert ev["firstTaskId"] != ev["duplicateTaskId"] and ev["matchedBy"] == "title and task"
        assert ev["deadWaitEndedAt"] <= ev["duplicateCreatedAt"]
        view = sup.view(now())
        assert len(view.row("thread-retry").children) == 2
        # the control: two same-title children made on purpose in parallel async calls
        assert len(view.row("thread-twins").children) == 2
        assert not [f for f in view.findings if f.thread_id == "thread-twins"]


# -- completion deliveries that will never reach the parent --

async def test_third_wave_left_pending_by_the_wake_cap_is_undelivered() -> None:
    async with running_backend(scenario="pending-delivery", scenario_params={"step": 2}) as backend, \
            watching(backend) as (session, sup):
        found = await finding(session, sup, "undelivered-result", 20)
        assert found is not None and found.evidence["delivery"] == "pending"
        assert sup.view(now()).row(found.thread_id).title == "Wave three"


async def test_control_without_the_cap_every_wave_is_delivered() -> None:
    params = {"step": 2, "faults": []}
    async with running_backend(scenario="pending-delivery", scenario_params=params) as backend, \
            watching(backend) as (session, sup):
        def all_told() -> bool:
            rows = backend.engine.projection("thread-waves").subagents
            return len(rows) == 3 and all(r.completion_delivery and r.completion_delivery.state in
                                          ("delivered", "acknowledged") for r in rows)
        assert await session.wait_until(all_told, 30)
        await never(session, sup, "undelivered-result", CFG.undelivered_dwell_s + 1)


async def test_stopped_parent_reads_children_orphaned_and_each_child_is_flagged() -> None:
    async with running_backend(scenario="orphaned-children") as backend, \
            watching(backend) as (session, sup):
        def orphaned() -> SupervisorView | None:
            view = sup.view(now())
            row = view.row("thread-stopped")
            return view if row is not None and row.state == "orphaned" else None
        view = await session.wait_until(orphaned, 15)
        assert view is not None
        parent = view.row("thread-stopped")
        assert parent.state_reason == "children orphaned (2 still running; the parent will not be told)"
        kids = await session.wait_until(lambda: [f for f in sup.view(now()).findings
                                                 if f.rule == "wake-disposed-while-running"]
                                        if len([f for f in sup.view(now()).findings
                                                if f.rule == "wake-disposed-while-running"]) == 2
                                        else None, 10)
        assert kids and {f.thread_id for f in kids} == set(parent.children)
