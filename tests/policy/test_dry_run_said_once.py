"""A dry run says each decision once, with its plan. Found running `watch --act --dry-run`
unattended: every decision printed "would ..." twice, when decided and again when its plan was
made, so a reader of the plan saw each one as two. A real run still says a run twice (taken,
then its outcome): those are two facts. Over a real session to the reference backend."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from t3tui.backend.testing import running_backend, wait_until
from t3tui.headless.acting import decision_text
from t3tui.model.findings import STUCK, Finding
from t3tui.policy import Decision, parse_text
from t3tui.policy.engine import Engine
from tests.actions.conftest import port_on
from tests.headless.test_commands_e2e import active_run
from tests.policy.hanging import hanging_thread, now

pytestmark = pytest.mark.e2e
POLICY = '[[policy]]\nwhen = "no-progress"\nafter = "1s"\ndo = "interrupt"\n'



async def decided(port, thread: str, *, dry_run: bool) -> list[Decision]:  # type: ignore[no-untyped-def]
    """Every decision the engine emitted about a no-progress finding on `thread`, once its
    run is over."""
    said: list[Decision] = []
    engine = Engine(parse_text(POLICY, "p"), clock=now, emit=said.append, timeout=10,
                    dry_run=dry_run)
    start = now()
    engine.start(start)
    row = port.supervisor.row(thread, now())
    finding = Finding(STUCK, thread, "no-progress", "quiet", {}, start + timedelta(seconds=1))
    engine.rows_changed({thread: replace(row, findings=(finding,))})
    for seconds in (2, 4, 6):  # it looks again while and after the run: no second decision
        engine.tick(port, start + timedelta(seconds=seconds), live=True, synchronized=True)
        await engine.idle()
    return said


async def test_a_dry_run_says_each_decision_once_with_its_plan() -> None:
    async with running_backend() as backend, port_on(backend) as port:
        thread = await hanging_thread(backend, port)

        [plan] = await decided(port, thread, dry_run=True)
        assert (plan.verdict, plan.done, plan.result) == ("dry-run", True, "dry-run"), plan
        assert [(s.action, s.outcome) for s in plan.steps] == [("interrupt", "dry-run")]
        lines = decision_text(plan).plain.splitlines()
        assert "⚙ dry run" in lines[0] and "would interrupt" in lines[0], lines
        assert len(lines) == 2 and lines[1].strip().startswith("would send interrupt: "), lines

        assert active_run(backend, thread) is not None  # a plan: nothing was sent

        # a real run: taken, then its outcome (two facts, two lines)
        taken, finished = await decided(port, thread, dry_run=False)
        assert (taken.verdict, taken.done) == ("act", False)
        assert (finished.verdict, finished.done) == ("act", True)
        assert finished.key == taken.key
        assert finished.result == "ok", finished
        await wait_until(lambda: active_run(backend, thread) is None, timeout=15)
