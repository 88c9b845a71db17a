"""interrupt / force stop / stop the tree through the `Port`, against the reference backend on
127.0.0.1:0 over real websockets with real agent processes."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from t3tui import actions
from t3tui.backend.testing import running_backend, wait_until
from tests.actions.conftest import port_on
from tests.headless.test_commands_e2e import WAIT_ON_HANGER, active_run, launch, running_child

pytestmark = pytest.mark.e2e


def now() -> datetime:
    return datetime.now(UTC)


class Heard:
    """A `report` callback that keeps every (phase, text)."""

    def __init__(self) -> None:
        self.said: list[tuple[str, str]] = []

    def __call__(self, phase: str, text: str) -> None:
        self.said.append((phase, text))


async def test_interrupt_is_ok_only_once_the_stream_shows_the_run_ended() -> None:
    async with running_backend() as backend, port_on(backend) as port:
        thread = await launch(backend, "Hang")
        run_id = await wait_until(lambda: active_run(backend, thread), timeout=10)
        await port.wait_until(lambda: port.supervisor.row(thread, now()), 10)
        heard = Heard()
        outcome = await actions.interrupt(port, thread, run_id, report=heard, clock=now,
                                          timeout=15)
        assert outcome.kind == "ok", outcome
        assert outcome.row.id == thread and outcome.row.active_run_id != run_id
        assert active_run(backend, thread) is None
        assert [p for p, _ in heard.said] == ["pending", "pending", "ok"]
        assert heard.said[-1][1] == outcome.text == (
            f"stopped: run {run_id} ended ({outcome.row.run_status})")

        # the same run again: the server refuses, in its own words
        again = await actions.interrupt(port, thread, run_id, report=heard, clock=now,
                                        timeout=5)
        assert again.kind == "refused" and again.message, again
        assert again.text.startswith(f"server refused: {again.message}")


async def test_a_stop_that_never_lands_is_not_confirmed_then_the_forced_stop_ends_it() -> None:
    async with running_backend(scenario="stop-never-lands") as backend, \
            port_on(backend) as port:
        child = await wait_until(lambda: running_child(backend, "thread-stop-me"), timeout=10)
        run_id = active_run(backend, child)
        assert run_id is not None
        outcome = await actions.interrupt(port, child, run_id, report=actions.no_report,
                                          clock=now, timeout=1)
        assert outcome.kind == "not_confirmed", outcome
        assert "still active after 1s" in outcome.text
        assert active_run(backend, child) == run_id

        heard = Heard()
        forced = await actions.force_stop(port, child, run_id, report=heard, clock=now,
                                          timeout=15)
        assert forced.kind == "ok", forced
        assert forced.text.startswith(f"force-stopped: run {run_id} ended")
        assert active_run(backend, child) is None
        assert forced.extra["session"] and [s.kind for s in forced.value] == ["ok"]
        assert heard.said[0] == ("pending", "Finding the thread's provider sessions…")

        # nothing left to detach: t3tui sends nothing and says why
        none = await actions.force_stop(port, child, run_id, report=heard, clock=now,
                                        timeout=5)
        assert none.kind == "unavailable" and "no live provider session" in none.text


async def test_stop_tree_stops_the_blocking_child_before_its_parent() -> None:
    async with running_backend() as backend, port_on(backend) as port:
        parent = await launch(backend, WAIT_ON_HANGER % 1, title="Waits")
        child = await wait_until(lambda: running_child(backend, parent), timeout=15)
        await port.wait_until(
            lambda: (row := port.supervisor.row(parent, now())) and child in row.children
            and port.supervisor.row(child, now()).active_run_id, 15)
        await port.wait_until(lambda: (v := port.supervisor.view(now())) and [
            c.id for c in actions.blocking_children(v, v.row(parent))] == [child], 15)
        view = port.supervisor.view(now())
        targets = actions.stop_targets(view, parent)
        assert [t.thread_id for t in targets] == [child, parent]
        steps: list[actions.StopStep] = []
        outcome = await actions.stop_tree(port, targets, root=parent, report=actions.no_report,
                                          clock=now,
                                          timeout=15, on_step=steps.append)
        assert outcome.kind == "ok", outcome
        assert outcome.value == steps and [s.target.thread_id for s in steps] == [child, parent]
        assert steps[0].kind == "stopped"
        assert all(s.stopped for s in steps)
        assert outcome.text.startswith("stopped 2 of 2")
        assert active_run(backend, child) is None and active_run(backend, parent) is None


async def test_a_tree_stop_stops_the_run_a_target_went_on_in_since_it_was_chosen() -> None:
    """Between the dialog and its turn a target's run can end and a new one begin (a parent
    whose stopped children's results were delivered to it runs again): what runs in the tree
    now is that run, and the stop is for it (a whole-suite run left such a parent working,
    its step said `ended_before`)."""
    async with running_backend() as backend, port_on(backend) as port:
        thread = await launch(backend, "Hang", title="Goes on")
        run = await wait_until(lambda: active_run(backend, thread), timeout=15)
        await port.wait_until(lambda: (r := port.supervisor.row(thread, now()))
                              and r.active_run_id == run, 15)
        [target] = actions.stop_targets(port.supervisor.view(now()), thread)
        chosen = replace(target, run_id="run-ended-since")  # the run the dialog listed
        steps: list[actions.StopStep] = []
        outcome = await actions.stop_tree(port, [chosen], root=thread, report=actions.no_report,
                                          clock=now,
                                          timeout=15, on_step=steps.append)
        assert [s.kind for s in steps] == ["stopped"], steps
        assert steps[0].target.run_id == run  # the run it was still going on in
        assert outcome.kind == "ok" and outcome.text.startswith("stopped 1 of 1"), outcome
        assert active_run(backend, thread) is None


async def test_no_answer_is_an_unknown_outcome_naming_the_command() -> None:
    async with running_backend() as backend, port_on(backend) as port:
        thread = await launch(backend, "Hang")
        run_id = await wait_until(lambda: active_run(backend, thread), timeout=10)
        await port.session.stop()  # the socket is gone: nothing can be sent or confirmed
        outcome = await actions.interrupt(port, thread, run_id, report=actions.no_report,
                                          clock=now, timeout=2)
        assert outcome.kind == "unknown" and outcome.command == "run.interrupt", outcome
        assert outcome.message and outcome.text == f"outcome unknown: {outcome.message}"
        assert active_run(backend, thread) == run_id
