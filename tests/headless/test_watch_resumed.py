"""`watch` just resumed from a pause of its own (SIGSTOP, a laptop's lid closed) compares
nothing until the hold ends (`policy.resume`), as while stale; then it prints what changed
meanwhile. Found leaving `watch --act` for a night: on resume its view was from before the
pause, half caught up, and a clock minutes on; a false "⚑ unheard" (a fresh provider record
against the old view) or "stuck" (a turn's end before its run's end) for about a second, then
"cleared". Over a real session; the pause is a monotonic clock that jumps."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest

from t3tui.backend.testing import running_backend, wait_until
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.headless.watch import Printer
from t3tui.model import DetectorConfig, Supervisor
from t3tui.policy.resume import FRESH_S, GAP_S
from tests.headless.test_commands_e2e import launch
from tests.headless.watching import watch_in_process

pytestmark = pytest.mark.e2e


class Monotonic:
    """time.monotonic, plus whatever pause the test says happened; counts the looks."""

    def __init__(self) -> None:
        self.offset, self.looks = 0.0, 0

    def __call__(self) -> float:
        self.looks += 1
        return time.monotonic() + self.offset


async def test_after_its_own_pause_watch_holds_its_lines_then_says_what_changed(capsys) -> None:
    supervisor = Supervisor(config=DetectorConfig())
    clock = Monotonic()
    async with running_backend() as backend:
        session = Session(Target(backend.url, Secret(backend.token)), supervisor,
                          backoff=Backoff.fast(), ping_interval=1.0)
        async with watch_in_process(session, supervisor, Printer(ndjson=True),
                                    synchronized_s=30, monotonic=clock):
            await wait_until(lambda: clock.looks >= 2, timeout=10, what="the watch looking")
            clock.offset += GAP_S * 10  # paused: the next look is long after the last
            thread = await launch(backend, "Hang", title="Started in the pause")
            await wait_until(lambda: supervisor.row(thread, datetime.now(UTC)) is not None,
                             timeout=15, what="the thread in the supervisor")
            looks = clock.looks
            await wait_until(lambda: clock.looks >= looks + 2, timeout=10, what="two looks")
            held = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
            assert [r for r in held if r.get("threadId") == thread] == [], held
            for _ in range(int(FRESH_S // (GAP_S / 2)) + 1):  # the hold passes, look by look
                clock.offset += GAP_S / 2
                looks = clock.looks
                await wait_until(lambda n=looks: clock.looks > n, timeout=10, what="a look")
            shown = await wait_until(
                lambda: [r for r in map(json.loads, capsys.readouterr().out.splitlines())
                         if r.get("threadId") == thread], timeout=10, what="what changed")
            assert shown[0]["kind"] == "appeared", shown
