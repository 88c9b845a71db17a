"""A forward in a policy's dry run: the plan a real run would start with. A real forward first
reads whether the parent's messages already carry the result (`actions.forward`'s once-check),
waiting for the parent's stream to load. A dry run reads it when it is loaded; when it is not
(a dropped connection, streams stale until they load again), it waits for no stream and plans
the forward, saying the check comes first, instead of refusing with "the parent's messages did
not load". Over a real session to the reference backend."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from t3tui import actions
from t3tui.actions import no_report
from t3tui.backend.testing import running_backend
from t3tui.model.forwarding import forward_text
from t3tui.policy.run import FORWARD_UNCHECKED
from tests.actions.conftest import port_on
from tests.policy.test_run_settle import settle_by_policy

pytestmark = pytest.mark.e2e
PARENT = "thread-waves"
POLICY = '[[policy]]\nwhen = "no-progress"\nafter = "1s"\ndo = "forward"\n'


def now() -> datetime:
    return datetime.now(UTC)


def forwards_of(backend, text: str) -> list:  # type: ignore[no-untyped-def]
    return [m for m in backend.engine.projection(PARENT).messages
            if m.role == "user" and m.text == text]


def pending_three(port):  # type: ignore[no-untyped-def]
    """The "Wave three" child while its result waits for the parent (T3 never delivered it)."""
    view = port.supervisor.view(now())
    row = next((r for r in view.rows if r.task and r.title == "Wave three"), None)
    return row if row is not None and row.task.delivery == "pending" else None


async def test_a_dry_run_forward_is_planned_whether_or_not_the_parent_is_loaded() -> None:
    async with running_backend(scenario="pending-delivery",
                               scenario_params={"step": 2}) as backend, \
            port_on(backend) as port:
        child = await port.wait_until(lambda: pending_three(port), 20)
        assert child is not None and port.supervisor.thread_synchronized(PARENT)

        # loaded: the once-check runs, as in a real run, and the forward is planned
        done = await settle_by_policy(port, child.id, POLICY, dry_run=True)
        [step] = done.steps
        assert (step.action, step.outcome, step.text) == ("forward", "dry-run", "would send")
        [planned] = step.sent
        assert (planned["type"], planned["threadId"]) == ("message.dispatch", PARENT), planned
        assert forwards_of(backend, forward_text(child)) == []  # a plan: nothing sent

        # forwarded for real: a dry run says what a real run would, and plans nothing
        sent = await actions.forward(port, child, report=no_report, clock=now, timeout=15)
        assert sent.kind == "ok", sent
        child = pending_three(port)
        assert child is not None
        done = await settle_by_policy(port, child.id, POLICY, dry_run=True)
        [step] = done.steps
        assert step.outcome == "unavailable" and step.sent == (), step
        assert "already forwarded to its parent" in step.text, step.text

        # the connection dropped: every stream stale until it loads again; the dry run plans
        # the forward and says the check comes first, it does not refuse for want of a load
        port.supervisor.mark_stale()
        assert not port.supervisor.thread_synchronized(PARENT)
        done = await settle_by_policy(port, child.id, POLICY, dry_run=True)
        [step] = done.steps
        assert (step.action, step.outcome) == ("forward", "dry-run"), step
        assert step.text == FORWARD_UNCHECKED, step.text
        assert [(c["type"], c["threadId"]) for c in step.sent] == [("message.dispatch", PARENT)]
        assert "did not load" not in done.line() and "would forward" in done.line(), done.line()
        assert len(forwards_of(backend, forward_text(child))) == 1  # the real one only
