"""`watch --act --ndjson`'s heartbeat is a liveness line, not a flood. Found leaving it under
the README's systemd unit: a `"kind": "tick"` record after every evaluation, at most once a
second, forever (~86,400 journal lines a day). Now one every `--heartbeat S` (default a
minute), and at once when the findings the policies judge change."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from t3tui.backend.provider.faults import SETTLE_DROPS_CHILD_SUBSCRIPTION
from t3tui.backend.testing import running_backend
from t3tui.headless.heartbeat import FLOOR_S, HEARTBEAT_S, Heartbeat
from tests.policy.watcher import watching
from tests.proof.helpers import settle_and_send

T0 = datetime(2026, 12, 3, 3, 0, tzinfo=UTC)


def ticks(watch) -> list[dict]:  # type: ignore[no-untyped-def]
    return [r for r in watch.records if r.get("kind") == "tick"]


def test_a_tick_comes_every_period_and_when_the_judged_findings_change() -> None:
    beat = Heartbeat()
    at = [T0 + timedelta(seconds=s) for s in range(200)]
    said = [s for s in range(200) if beat.due(at[s], frozenset())]
    assert said == [0, 60, 120, 180]  # the first evaluation, then one a minute
    beat = Heartbeat()
    judged = {s: frozenset({("child", "unheard")}) if 10 <= s < 30 else frozenset()
              for s in range(90)}
    said = [s for s in range(90) if beat.due(at[s], judged[s])]
    assert said == [0, 10, 30], said  # alive, it appeared, it cleared (the next: at 90)
    assert HEARTBEAT_S == 60.0


def test_a_change_within_the_floor_is_said_at_the_first_evaluation_after_it() -> None:
    beat = Heartbeat(every=60.0, floor=FLOOR_S)
    one, two = frozenset({"a"}), frozenset({"a", "b"})
    assert beat.due(T0, frozenset())
    assert not beat.due(T0 + timedelta(seconds=0.2), frozenset())
    assert beat.due(T0 + timedelta(seconds=1.0), one)  # changed, past the floor
    assert not beat.due(T0 + timedelta(seconds=1.3), two)  # changed, inside it: held
    assert beat.due(T0 + timedelta(seconds=2.1), two)  # said at the next evaluation
    assert not beat.due(T0 + timedelta(seconds=30), two)


@pytest.mark.e2e
async def test_by_default_an_idle_watch_says_it_is_alive_once_not_every_second(
        tmp_path: Path) -> None:
    async with running_backend() as backend, \
            watching(backend, "--duration", "5", tmp=tmp_path, heartbeat=None) as watch:
        code = await watch.wait_for(lambda: watch.proc.returncode is not None
                                    and watch._reader.done() and [watch.proc.returncode],
                                    30, "the end of its 5 s")
        assert code == [0], watch.lines
    [tick] = ticks(watch)  # the first evaluation: alive; the next a minute on
    assert tick["looks"] == 1 and tick["findings"] == [] and tick["live"] is True, tick


@pytest.mark.e2e
async def test_by_default_a_finding_the_policies_judge_is_a_tick_at_once(tmp_path: Path) -> None:
    policy = '[[policy]]\nwhen = "provider-finished-unheard"\nafter = "10m"\ndo = "interrupt"\n'
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]
    ) as backend, watching(backend, policy=policy, tmp=tmp_path, heartbeat=None) as watch:
        child = await settle_and_send(backend, "Reply PONG")
        [finding] = await watch.wait_for(
            lambda: [r for r in watch.records if r.get("kind") == "finding"
                     and r["threadId"] == child and r["finding"]["rule"] ==
                     "provider-finished-unheard"], 60, "the unheard finding")
        judged = await watch.wait_for(
            lambda: [t for t in ticks(watch) if t["findings"]], 30, "a tick that judged it")
        assert [(f["threadId"], f["rule"]) for f in judged[0]["findings"]] == [
            (child, "provider-finished-unheard")]
        # within a second or two of the finding, not at the next minute's heartbeat
        lag = (datetime.fromisoformat(judged[0]["at"]) -
               datetime.fromisoformat(finding["at"])).total_seconds()
        assert lag < 5, (judged[0], finding)
        assert len(ticks(watch)) == 2, ticks(watch)  # alive, then the change
