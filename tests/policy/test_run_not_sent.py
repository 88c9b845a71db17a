"""A policy run that sent nothing, because the read it needed first (the thread's provider
sessions, for a forced stop) failed with the connection, leaves the finding open: once the
connection is back the policy acts on it. Found by running `watch --act` with the server
stopped (SIGSTOP) just as a forced stop fell due: the run was journaled "outcome unknown"
with nothing sent, and the stuck child was never stopped. Over real sessions to the
reference backend."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from t3tui.backend.testing import running_backend, wait_until
from t3tui.model.findings import STUCK, Finding
from t3tui.policy import parse_text
from t3tui.policy.engine import Engine
from tests.actions.conftest import port_on
from tests.headless.test_commands_e2e import active_run
from tests.policy.hanging import hanging_thread, now, seen_running

pytestmark = pytest.mark.e2e



async def test_a_run_that_sent_nothing_is_tried_again_once_live() -> None:
    policies = parse_text('[[policy]]\nwhen = "interrupt-not-landed"\nafter = "1s"\n'
                          'do = "force-stop"\n', "p")
    async with running_backend() as backend:
        thread = await hanging_thread(backend)
        said = []
        engine = Engine(policies, clock=now, emit=said.append, timeout=10)
        start = now()
        engine.start(start)
        stuck = Finding(STUCK, thread, "interrupt-not-landed", "stop not landed", {},
                        start + timedelta(seconds=1))
        async with port_on(backend) as lost:
            await seen_running(lost, thread)
            row = lost.supervisor.row(thread, now())
            engine.rows_changed({thread: replace(row, findings=(stuck,))})
            engine.tick(lost, start + timedelta(seconds=2), live=True, synchronized=True)
            await lost.session.stop()  # gone before the sessions could be read
            [first] = engine.tick(lost, start + timedelta(seconds=4), live=True,
                                  synchronized=True)
            await engine.idle()
        unsent = said[-1]
        assert unsent.key == first.key and unsent.done, unsent
        assert unsent.result == "not-sent", unsent
        assert unsent.steps[0].sent == ()
        assert "nothing sent" in unsent.steps[0].text
        assert active_run(backend, thread) is not None  # indeed nothing happened
        async with port_on(backend) as port:
            await seen_running(port, thread)
            [again] = engine.tick(port, start + timedelta(seconds=6), live=True,
                                  synchronized=True)
            assert again.verdict == "act" and again.key == first.key
            await engine.idle()
            finished = said[-1]
            assert finished.result == "ok", finished
            assert [s["type"] for s in finished.steps[0].sent] == ["provider-session.detach"]
            await wait_until(lambda: active_run(backend, thread) is None, timeout=10)
            # it ran now: closed for good, as any run
            assert engine.tick(port, start + timedelta(seconds=60), live=True,
                               synchronized=True) == []
