"""t3tui itself paused (a suspend, SIGSTOP) holds the policies until the facts are fresh again.
Found by stopping `watch --act` for a minute while a stop was landing: on resume it started a
forced stop at once, on the view from before the pause (the stop had landed meanwhile)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from t3tui.backend.testing import running_backend
from t3tui.model.findings import STUCK, Finding
from t3tui.policy import parse_text
from t3tui.policy.engine import Engine
from t3tui.policy.resume import FRESH_S, GAP_S, Resume
from tests.actions.conftest import port_on
from tests.headless.test_commands_e2e import active_run
from tests.policy.hanging import hanging_thread, now


def test_a_gap_between_looks_holds_for_two_ping_rounds() -> None:
    resume = Resume()
    assert all(resume.look(float(t)) for t in range(30))  # a look a second: fresh
    assert resume.look(29 + GAP_S)  # a slow look, not a pause
    paused = 29 + GAP_S + 60
    assert not resume.look(paused) and resume.paused_s == 60
    # looks a second apart again: not fresh until two ping rounds have passed
    assert not any(resume.look(paused + t) for t in range(1, int(FRESH_S)))
    assert resume.look(paused + FRESH_S)


@pytest.mark.e2e
async def test_a_policy_due_on_resume_waits_for_fresh_facts() -> None:
    policies = parse_text('[[policy]]\nwhen = "interrupt-not-landed"\nafter = "30s"\n'
                          'do = "force-stop"\n', "p")
    async with running_backend() as backend, port_on(backend) as port:
        thread = await hanging_thread(backend, port)
        said = []
        engine = Engine(policies, clock=now, emit=said.append, timeout=10)
        start = now()
        engine.start(start)
        stuck = Finding(STUCK, thread, "interrupt-not-landed", "stop not landed", {},
                        start + timedelta(seconds=1))
        row = port.supervisor.row(thread, now())
        engine.rows_changed({thread: replace(row, findings=(stuck,))})
        engine.tick(port, start + timedelta(seconds=2), live=True, synchronized=True)
        # the process was paused past the dwell: its first look is not fresh
        [held] = engine.tick(port, start + timedelta(seconds=90), live=True, synchronized=True,
                             fresh=False)
        assert (held.verdict, held.code) == ("skip", "resumed"), held
        assert "paused" in held.why
        assert engine.tick(port, start + timedelta(seconds=91), live=True, synchronized=True,
                           fresh=False) == []  # said once
        assert engine.running == 0 and active_run(backend, thread) is not None
        # fresh again and the finding still holds: now it acts
        [due] = engine.tick(port, start + timedelta(seconds=101), live=True, synchronized=True)
        assert due.verdict == "act"
        await engine.idle()
        assert said[-1].result == "ok", said[-1]
