"""A tree stop and the runs its stopped children's results start: against the reference
backend on 127.0.0.1:0 over real websockets, with real agent processes. The parent's agent is
an orchestrator that goes on working once woken (the provider's `wakeReaction`), so a run the
results start keeps going unless the tree stop stops it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from t3tui import actions
from t3tui.backend.testing import RunningBackend, running_backend, wait_until
from tests.actions.conftest import port_on
from tests.actions.test_interrupt import now
from tests.headless.cli import cli, server_args
from tests.headless.test_commands_e2e import active_run, launch, running_child

pytestmark = pytest.mark.e2e
DELEGATES = ('delegate_task {"task": "Hang", "title": "Hanger", "mode": "async", '
             '"clientRequestId": "async-hang"}\nReply Delegated.')
SETTLED = ("delivered", "acknowledged", "disposed")  # no wake can come of it any more


def woken_goes_on(tmp: Path) -> Path:
    """Providers whose woken agents read their results, then go on working (Hang)."""
    path = tmp / "woken-goes-on.json"
    path.write_text(json.dumps({
        "name": "woken-goes-on", "description": "a woken orchestrator goes on working",
        "providers": [{"name": "codex", "wakeReaction": "Hang"}], "steps": []}))
    return path


def delivery(backend: RunningBackend, parent: str) -> str | None:
    [task] = backend.engine.state(parent).values("subagents")
    return (task.get("completionDelivery") or {}).get("state")


async def test_a_tree_stop_stops_the_run_its_stopped_childrens_results_start(
        tmp_path: Path) -> None:
    async with running_backend(scenario=woken_goes_on(tmp_path)) as backend, \
            port_on(backend) as port:
        parent = await launch(backend, DELEGATES, title="Orchestrates")
        child = await wait_until(lambda: running_child(backend, parent), timeout=15)
        await wait_until(lambda: active_run(backend, parent) is None, timeout=15,
                         what="the parent's turn ends, its child running")
        await port.wait_until(lambda: (v := port.supervisor.view(now())) and v.row(child)
                              and v.row(child).active_run_id
                              and v.row(parent).active_run_id is None, 15)
        targets = actions.stop_targets(port.supervisor.view(now()), parent)
        assert [t.thread_id for t in targets] == [child]  # the parent has no run to stop
        steps: list[actions.StopStep] = []
        outcome = await actions.stop_tree(port, targets, root=parent, report=actions.no_report,
                                          clock=now,
                                          timeout=15, on_step=steps.append)
        # the child's result wakes the parent, whose agent goes on; whether that is seen
        # before or after the action's end, the tree is quiet only if it was stopped
        await wait_until(lambda: active_run(backend, parent) or delivery(backend, parent)
                         in SETTLED, timeout=15, what="the child's result reaches the parent")
        assert active_run(backend, child) is None
        assert active_run(backend, parent) is None, (outcome, steps)
        assert delivery(backend, parent) in SETTLED
        assert outcome.kind == "ok", outcome
        restarted = [s for s in steps if s.target.thread_id == parent]
        assert [s.kind for s in restarted] == ["stopped"], steps
        assert "started again" in outcome.text, outcome


async def test_the_cli_tree_stop_says_the_parent_started_again_and_stopped_it(
        tmp_path: Path) -> None:
    async with running_backend(scenario=woken_goes_on(tmp_path)) as backend:
        parent = await launch(backend, DELEGATES, title="Orchestrates")
        child = await wait_until(lambda: running_child(backend, parent), timeout=15)
        await wait_until(lambda: active_run(backend, parent) is None, timeout=15,
                         what="the parent's turn ends, its child running")
        tree = await cli("interrupt", parent, "--tree", *server_args(backend))
        assert tree.code == 0, tree
        lines = tree.out.splitlines()
        assert lines[0].split()[:2] == ["stopped", "Hanger"], lines
        again = [line for line in lines if "Orchestrates" in line]
        assert again and all(line.split()[0] == "stopped" and line.endswith(
            "(started again on its stopped children's results)") for line in again), lines
        assert lines[-1] == f"stopped {1 + len(again)} of {1 + len(again)}", lines
        await wait_until(lambda: delivery(backend, parent) in SETTLED, timeout=15,
                         what="the child's result settled")
        assert active_run(backend, parent) is None and active_run(backend, child) is None
