"""`settle` by policy only when it is safe, over a real session to the reference backend: a
parent whose unsettled child shares its provider session (seed 004) is not settled; a thread
with nothing below it is, confirmed from the stream."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from t3tui.backend.testing import running_backend, wait_until
from t3tui.model.findings import STUCK, Finding
from t3tui.policy import Decision, parse_text
from t3tui.policy.engine import Engine
from tests.actions.conftest import port_on
from tests.headless.test_commands_e2e import active_run, launch
from tests.policy.hanging import hanging_thread, now
from tests.proof.helpers import PARENT

pytestmark = pytest.mark.e2e
POLICY = '[[policy]]\nwhen = "no-progress"\nafter = "1s"\ndo = "settle"\n'



async def settle_by_policy(port, thread: str, policy: str = POLICY,  # type: ignore[no-untyped-def]
                           dry_run: bool = False) -> Decision:
    said: list[Decision] = []
    engine = Engine(parse_text(policy, "p"), clock=now, emit=said.append, timeout=10,
                    dry_run=dry_run)
    start = now()
    engine.start(start)
    row = port.supervisor.row(thread, now())
    finding = Finding(STUCK, thread, "no-progress", "quiet", {}, start + timedelta(seconds=1))
    engine.rows_changed({thread: replace(row, findings=(finding,))})  # the engine's input
    engine.tick(port, start + timedelta(seconds=2), live=True, synchronized=True)
    engine.tick(port, start + timedelta(seconds=4), live=True, synchronized=True)
    await engine.idle()
    return said[-1]


async def test_a_parent_sharing_its_session_with_a_live_child_is_not_settled() -> None:
    async with running_backend(scenario="settle-unsubscribe") as backend, \
            port_on(backend) as port:
        done = await settle_by_policy(port, PARENT)
        [step] = done.steps
        assert (step.action, step.outcome) == ("settle", "unavailable"), step
        assert "not safe to settle" in step.text and step.sent == ()
        assert backend.engine.shell_row(PARENT).settled_override != "settled"


async def test_a_thread_with_nothing_below_it_is_settled_and_confirmed() -> None:
    async with running_backend() as backend, port_on(backend) as port:
        thread = await launch(backend, "Reply DONE")
        await wait_until(lambda: any("DONE" in m["text"] for m in
                                     backend.engine.projection_wire(thread)["messages"]),
                         timeout=15)
        await wait_until(lambda: active_run(backend, thread) is None, timeout=15)
        await port.wait_until(lambda: (r := port.supervisor.row(thread, now()))
                              and r.active_run_id is None and r.state == "idle", 15)
        done = await settle_by_policy(port, thread)
        [step] = done.steps
        assert (step.outcome, [c["type"] for c in step.sent]) == ("ok", ["thread.settle"]), step
        assert backend.engine.shell_row(thread).settled_override == "settled"


async def test_a_dry_run_check_in_is_planned_not_sent() -> None:
    async with running_backend() as backend, port_on(backend) as port:
        thread = await hanging_thread(backend, port)
        policy = '[[policy]]\nwhen = "no-progress"\nafter = "1s"\ndo = ["checkin", "interrupt"]\n'
        done = await settle_by_policy(port, thread, policy, dry_run=True)
        assert [(s.action, s.outcome) for s in done.steps] == [("checkin", "dry-run"),
                                                               ("interrupt", "dry-run")]
        assert [c["type"] for s in done.steps for c in s.sent] == ["message.dispatch",
                                                                   "run.interrupt"]
        assert active_run(backend, thread) is not None
        texts = [m["text"] for m in backend.engine.projection_wire(thread)["messages"]]
        assert texts == ["Hang"]  # nothing was sent
