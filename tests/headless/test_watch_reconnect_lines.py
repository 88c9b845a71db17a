"""A quick reconnect is one line in `watch`, not "connection stale" then "connection live" in
the same second. Found leaving `watch --act` running for hours: after every dropped socket
the human output said stale and live again within the second. Now: "connection live
(reconnected after N s)"; "connection stale" only when catching up lasts (`STALE_DWELL_S`).
The ndjson keeps a record of every state (machines read it)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest

from t3tui.backend.testing import running_backend, wait_until
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.client.state import Live, Reconnecting, Stale
from t3tui.headless.watch import Printer
from t3tui.model import DetectorConfig, Supervisor
from tests.headless.watching import watch_in_process

T0 = datetime(2026, 12, 3, 3, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


@pytest.mark.e2e
async def test_a_dropped_socket_that_comes_back_at_once_is_said_as_reconnected(capsys) -> None:
    supervisor = Supervisor(config=DetectorConfig())
    async with running_backend() as backend:
        session = Session(Target(backend.url, Secret(backend.token)), supervisor,
                          backoff=Backoff.fast(), ping_interval=1.0)
        states: list[str] = []
        session.state.subscribe(lambda s: states.append(s.kind))
        async with watch_in_process(session, supervisor, Printer(ndjson=False),
                                    synchronized_s=30):
            await asyncio.sleep(0)  # the watch subscribes to the states first
            session._conn.abort("dropped by the test")  # type: ignore[union-attr]
            await wait_until(lambda: states[-3:] == ["reconnecting", "stale", "live"],
                             timeout=30, what="reconnected")
    lines = [line for line in capsys.readouterr().out.splitlines() if "connection" in line]
    assert len(lines) == 2, lines
    assert "connection reconnecting (attempt 1: " in lines[0], lines
    assert "connection live (reconnected" in lines[1], lines


def test_catching_up_that_lasts_is_said_once(capsys) -> None:
    printer = Printer(ndjson=False)
    printer.connection(Live(), at(0))
    printer.connection(Reconnecting(1, "closed"), at(10))
    printer.connection(Stale(), at(11))
    for seconds in (11.5, 12.5, 13.5, 14.5, 20):  # the watch looks about once a second
        printer.look(at(seconds))
    printer.connection(Live(), at(21))
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("  ", 1)[1] for line in lines] == [
        "connection live",
        "connection reconnecting (attempt 1: closed)",
        "connection stale (catching up since 03:00:11)",
        "connection live (reconnected after 11s)",
    ], lines
    assert lines[2].startswith("03:00:13"), lines  # past the dwell, not at once


def test_the_ndjson_keeps_every_state(capsys) -> None:
    printer = Printer(ndjson=True)
    printer.connection(Live(), at(0))
    printer.connection(Reconnecting(1, "closed"), at(10))
    printer.connection(Stale(), at(10.2))
    printer.look(at(10.5))
    printer.connection(Live(), at(11.6))
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["state"] for r in records] == ["live", "reconnecting", "stale", "live"]
    assert records[-1]["detail"] == "reconnected after 2s", records[-1]
