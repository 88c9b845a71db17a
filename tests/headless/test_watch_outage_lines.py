"""A server down for the night is not a `watch` line every 8 s. Found leaving `watch --act`
on a server that was then stopped: "connection reconnecting (attempt N: ... connection
refused ...)" every 8 s, about 450 identical lines an hour. Over a real session to the
reference backend, stopped under it (a fast backoff stands in for hours of attempts)."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime, timedelta

import pytest

from t3tui.backend.testing import running_backend, wait_until
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.client.state import Live, Reconnecting
from t3tui.headless.reconnects import FIRST, REPEAT_S, ReconnectLines
from t3tui.headless.watch import Printer
from t3tui.model import DetectorConfig, Supervisor
from tests.headless.watching import watch_in_process

pytestmark = pytest.mark.e2e


async def test_a_long_outage_is_said_a_few_times_not_every_attempt(capsys) -> None:
    supervisor = Supervisor(config=DetectorConfig())
    async with contextlib.AsyncExitStack() as server:
        backend = await server.enter_async_context(running_backend())
        session = Session(Target(backend.url, Secret(backend.token)), supervisor,
                          backoff=Backoff.fast(), ping_interval=1.0)
        async with watch_in_process(session, supervisor, Printer(ndjson=True),
                                    synchronized_s=30):
            await server.aclose()  # the server goes away under the watch
            await wait_until(lambda: isinstance(s := session.state.value, Reconnecting)
                             and s.attempt >= 40, timeout=30, what="40 reconnect attempts")
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    attempts = [r for r in records if r["kind"] == "connection" and r["state"] == "reconnecting"]
    assert attempts and attempts[0]["detail"].startswith("attempt 1:")
    # the ramp, and an attempt whose error changed; not one line per attempt
    assert len(attempts) <= FIRST + 2, [a["detail"] for a in attempts]


def test_after_the_ramp_the_same_error_is_said_again_once_per_period() -> None:
    lines, t0 = ReconnectLines(), datetime(2026, 12, 3, 2, 0, tzinfo=UTC)
    said = [n for n in range(1, 200)
            if lines.say(Reconnecting(n, "connection refused"), t0 + timedelta(seconds=8 * n))]
    # 1..5, then one every REPEAT_S (8 s apart: every 38th attempt), with how long it is down
    assert said[:FIRST] == list(range(1, FIRST + 1))
    assert len(said) == FIRST + int((199 - FIRST) * 8 // REPEAT_S)
    last = Reconnecting(said[-1], "connection refused")
    detail = lines.detail(last, t0 + timedelta(seconds=8 * said[-1]))
    assert "down since 02:00:08" in detail
    assert lines.say(Reconnecting(200, "ReadTimeout"), t0 + timedelta(seconds=1600))  # changed
    assert lines.say(Live(), t0 + timedelta(seconds=1608))  # back: said, the outage is over
    assert lines.say(Reconnecting(1, "connection refused"), t0 + timedelta(seconds=1700))
