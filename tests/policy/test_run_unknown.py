"""A policy's action whose answer was lost with the socket is "outcome unknown", journaled as
such, and not tried again: over a real session to the reference backend, stopped mid-way."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from t3tui.backend.testing import running_backend
from t3tui.model.findings import STUCK, Finding
from t3tui.policy import parse_text
from t3tui.policy.engine import Engine
from tests.actions.conftest import port_on
from tests.policy.hanging import hanging_thread, now

pytestmark = pytest.mark.e2e



async def test_an_unknown_outcome_is_journaled_and_not_retried() -> None:
    policies = parse_text('[[policy]]\nwhen = "no-progress"\nafter = "1s"\ndo = "interrupt"\n',
                          "p")
    async with running_backend() as backend, port_on(backend) as port:
        thread = await hanging_thread(backend, port)
        said = []
        engine = Engine(policies, clock=now, emit=said.append, timeout=2)
        start = now()
        engine.start(start)
        row = port.supervisor.row(thread, now())
        hung = Finding(STUCK, thread, "no-progress", "quiet", {}, start + timedelta(seconds=1))
        engine.rows_changed({thread: replace(row, findings=(hung,))})  # the engine's input
        engine.tick(port, start + timedelta(seconds=2), live=True, synchronized=True)
        await port.session.stop()  # the socket is gone before anything is sent
        assert [d.verdict for d in said] == []
        [decision] = engine.tick(port, start + timedelta(seconds=4), live=True,
                                 synchronized=True)
        await engine.idle()
        finished = said[-1]
        assert finished.done and finished.result == "unknown", finished
        assert finished.steps[0].text.startswith("outcome unknown")
        assert [s["type"] for s in finished.steps[0].sent] == ["run.interrupt"]
        assert engine.tick(port, start + timedelta(seconds=60), live=True,
                           synchronized=True) == []  # never retried
        assert decision.key == finished.key
