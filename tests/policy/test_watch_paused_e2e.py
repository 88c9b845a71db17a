"""`watch --act` paused (SIGSTOP, as a laptop's lid closed) while a delegated child's turn
ends normally: on resume its view is from before the pause, catching up, with a clock many
seconds on. Found leaving it for a night: a false "⚑ unheard" or "⚑ stuck" for about a second
after a resume, then "cleared". The policies already held for 10 s after a pause
(`policy.resume`); the lines are held too (`headless.watch`), then what changed is printed.
The race is the machine's: before the fix this failed about every other run
(tests/headless/test_watch_resumed.py holds the mechanism deterministically)."""

from __future__ import annotations

import signal
from datetime import UTC, datetime
from pathlib import Path

import pytest

from t3tui.backend.testing import running_backend, wait_until
from t3tui.model.config import DetectorConfig
from t3tui.policy.resume import FRESH_S
from tests.headless.test_commands_e2e import active_run, launch, running_child
from tests.policy.watcher import watching

pytestmark = pytest.mark.e2e


async def test_a_turn_that_ended_during_its_pause_is_not_flagged_on_resume(
        tmp_path: Path) -> None:
    dwell = DetectorConfig().provider_unheard_dwell_s
    async with running_backend() as backend, \
            watching(backend, tmp=tmp_path) as watch:
        parent = await launch(backend, 'delegate_task {"task": "Run `sleep 3; echo DONE`", '
                              '"title": "Worker", "mode": "wait", "timeoutMs": 60000, '
                              '"clientRequestId": "w-1"}\nReply PARENT_DONE', title="Parent")
        thread = await wait_until(lambda: running_child(backend, parent), timeout=15)
        await watch.wait_for(lambda: [r for r in watch.records if r.get("threadId") == thread
                                      and r.get("to") == "running"], 30, "the thread running")
        watch.proc.send_signal(signal.SIGSTOP)
        try:
            await wait_until(lambda: active_run(backend, thread) is None, timeout=30,
                             what="the turn's end")
            # the pause outlasts the rule's dwell: on resume the record's end is old enough
            # to be a finding, if the stale view were believed
            ended = datetime.now(UTC)
            await wait_until(lambda: (datetime.now(UTC) - ended).total_seconds() > dwell + 4,
                             timeout=dwell + 30, what="a pause past the dwell")
        finally:
            watch.proc.send_signal(signal.SIGCONT)
        resumed = datetime.now(UTC)
        await watch.wait_for(lambda: [r for r in watch.records if r.get("threadId") == thread
                                      and r.get("to") not in (None, "running")], 30,
                             "the thread's end, once resumed")
        await watch.looked_again(resumed, FRESH_S + 3)  # past the hold
        flagged = [r for r in watch.records if r.get("kind") in ("finding", "finding-cleared")
                   and r.get("threadId") in (parent, thread)]
        assert flagged == [], flagged
        assert watch.policy() == [], watch.policy()
