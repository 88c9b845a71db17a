"""The demo shows one stuck child on purpose, not five (issue 21: after ~4 minutes every
long-running demo child that ran a silent `sleep` turned `stuck?` by the no-progress rule).
The demo scenario on the reference backend, real agent processes, the real client; the rule's
240 s are scaled down to 8 s and the demo's short sleeps to fit under them, so the long
children are watched for several thresholds in seconds."""

from __future__ import annotations

import asyncio

import pytest

from t3tui.backend.testing import running_backend
from t3tui.model import DetectorConfig, Supervisor
from tests.headless.test_second_wave_e2e import now, watching

pytestmark = pytest.mark.e2e

PARAMS = {"short": 2, "timeoutMs": 2000, "sleep": 4, "ticks": 900}
CFG = DetectorConfig(no_progress_s=8.0)
LONG = ("Audit the repo", "Crawl the docs", "Healthy long runner")
STUCK_ON_PURPOSE = {"Won't stop"}  # its interrupt never lands (the demo's story)


def silent(sup: Supervisor) -> set[str]:
    view = sup.view(now())
    return {view.row(f.thread_id).title for f in view.findings
            if f.rule == "no-progress"} - STUCK_ON_PURPOSE


async def test_the_demos_long_children_keep_showing_progress() -> None:
    async with running_backend(scenario="demo", scenario_params=PARAMS) as backend, \
            watching(backend, CFG) as (session, sup):
        def running() -> bool:
            rows = sup.view(now()).rows
            return all(any(r.title == t and r.active_run_id for r in rows) for t in LONG)

        assert await session.wait_until(running, 40), "the demo's long children running"
        loop = asyncio.get_running_loop()
        until = loop.time() + 3 * CFG.no_progress_s
        seen: set[str] = set()
        while loop.time() < until:
            seen |= silent(sup)
            await asyncio.sleep(0.25)
        assert not seen, f"flagged no-progress: {sorted(seen)}"
        assert running()  # still running: watched, not finished
