"""settle (with its child-safety check), settle the children first, dispose / acknowledge a
delivery, message, forward and check-in through the `Port`, against the reference backend on
127.0.0.1:0 over real websockets with real agent processes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from t3tui import actions
from t3tui.actions import no_report
from t3tui.backend.testing import running_backend, wait_until
from t3tui.model.forwarding import forward_text
from tests.actions.conftest import port_on

pytestmark = pytest.mark.e2e
PARENT = "thread-parent"  # settle-unsubscribe: a parent and a child in one provider session


def now() -> datetime:
    return datetime.now(UTC)


async def test_the_settle_check_names_the_child_sharing_the_session_then_children_first() -> None:
    async with running_backend(scenario="settle-unsubscribe") as backend, \
            port_on(backend) as port:
        view = port.supervisor.view(now())
        [child] = view.row(PARENT).children
        check = await actions.check_settle(port, view, PARENT)
        assert [r.id for r in check.unsettled] == [child]
        assert [r.child_id for r in check.risks] == [child] and check.risks[0].session_id

        said: list[tuple[str, str]] = []
        outcome = await actions.settle_children_first(
            port, PARENT, [child], report=lambda *a: said.append(a), clock=now, timeout=15,
            title_of=lambda t: "the child" if t == child else t)
        assert outcome.kind == "ok" and outcome.text == "settled", (outcome, said)
        assert outcome.row.id == PARENT and outcome.row.settled
        assert port.supervisor.row(child, now()).settled
        # the child's settle is a step (pending), only the parent's ends the report
        assert said[-1] == ("ok", "settled")
        assert ("pending", "child the child: settled") in said
        assert backend.engine.shell_row(PARENT).settled_override == "settled"


async def test_deliveries_and_a_forwarded_result_confirmed_from_the_stream() -> None:
    async with running_backend(scenario="pending-delivery",
                               scenario_params={"step": 2}) as backend, \
            port_on(backend) as port:

        def wave(n: str):
            view = port.supervisor.view(now())
            return next((r for r in view.rows if r.task and r.title == f"Wave {n}"), None)

        three = await port.wait_until(
            lambda: (r := wave("three")) and r.task.delivery == "pending" and r, 20)
        assert three is not None
        assert actions.unavailable("forward", three, connected=True) is None
        sent = await actions.forward(port, three, report=no_report, clock=now, timeout=15)
        assert sent.kind == "ok" and sent.extra["parent"].id == "thread-waves", sent
        messages = backend.engine.projection("thread-waves").messages
        assert any(m.role == "user" and m.text == forward_text(three) for m in messages)

        acked = await actions.settle_delivery(port, three, "acknowledge", report=no_report,
                                              clock=now, timeout=15)
        assert acked.kind == "ok" and acked.text == "delivery acknowledged", acked
        assert acked.row.task.delivery == "acknowledged"

        # the server decides: wave one was read by its parent, so dispose is refused
        refused = await actions.settle_delivery(port, wave("one"), "dispose",
                                                report=no_report, clock=now, timeout=5)
        assert refused.kind == "refused", refused
        assert "completion delivery is already acknowledged." in refused.refusal


async def test_a_message_and_a_checkin_are_confirmed_from_the_threads_own_stream() -> None:
    async with running_backend(scenario="settle-unsubscribe") as backend, \
            port_on(backend) as port:
        said: list[tuple[str, str]] = []
        sent = await actions.send_message(port, PARENT, "Reply exactly PONG",
                                          report=lambda *a: said.append(a), clock=now,
                                          timeout=15)
        assert sent.kind == "ok" and sent.text == "message delivered", (sent, said)
        assert sent.extra == {"queued": False}
        assert any(m.role == "user" and m.text == "Reply exactly PONG"
                   for m in backend.engine.projection(PARENT).messages)
        await wait_until(lambda: backend.engine.shell_row(PARENT).active_run_id is None,
                         timeout=15)
        await port.wait_until(lambda: not actions.is_busy(port.supervisor.row(PARENT, now())),
                              10)

        checked = await actions.checkin(port, PARENT, report=no_report, clock=now,
                                        timeout_s=15)
        assert checked.kind == "ok" and checked.value.verdict == "answered", checked
        assert checked.text.startswith("check-in answered")

        # t3tui sends nothing to a thread it does not know: the outcome is unknown, not a raise
        lost = await actions.checkin(port, "thread-nowhere", report=no_report, clock=now,
                                     timeout_s=1)
        assert lost.kind == "unknown" and "thread-nowhere" in lost.message
