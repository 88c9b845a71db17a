"""Incremental derivation gives exactly what deriving everything afresh gives.

Every fixture is replayed in simulated time into three supervisors: the reference
(`incremental=False`: every row derived afresh on every call), one asked for `view(now)`, and
one asked only for `changed_rows(now)` as a screen does. At every sample (each frame's time and
a fine grid past the longest dwell) the incremental answers must equal the reference. A rule
that read the clock without noting the moment its answer flips (`t3tui/model/deadlines.py`)
would show up here as a row that flips late.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from t3tui.model import DetectorConfig, Supervisor
from t3tui.model.checkin import plan_checkin
from t3tui.model.deadlines import Collect, note
from t3tui.model.detectors.common import held, reached
from tests.model.factory import at, task_ids
from tests.model.replay import feed, frame_time, load, supervisor
from tests.model.timeline import FRAMES

# every recorded or synthetic stream fixture, including ones added later
FIXTURES = sorted(p.stem for p in FRAMES.glob("*.json")
                  if {"live", "recorded"} & set(json.loads(p.read_text())))
# short dwells so that every rule flips inside the replayed span
CONFIGS = [DetectorConfig(), DetectorConfig(
    provider_finished_dwell_s=3, detached_session_dwell_s=2, no_progress_s=7,
    drain_too_long_s=4, undelivered_dwell_s=5, claimed_dwell_s=6, orphaned_dwell_s=2,
    phantom_grace_s=3)]


def _frames(name: str) -> list[dict]:
    doc = load(name)
    return [fr for fr in doc.get("live", doc.get("recorded", [])) if "mark" not in fr]


def _samples(frames: list[dict], config: DetectorConfig) -> list:
    times = sorted({t for fr in frames if (t := frame_time(fr)) is not None})
    start, end = times[0], times[-1] + timedelta(seconds=config.no_progress_s + 30)
    grid, t = [], start
    while t <= end:
        grid.append(t)
        t += timedelta(seconds=0.37 if t < times[-1] + timedelta(seconds=40) else 2.9)
    return sorted(set(grid) | set(times) | {x + timedelta(milliseconds=1) for x in times})


def _comparable(row):
    """A row as a screen sees it between two once-a-second refreshes of flagged rows."""
    return (row.state, row.overlays, row.children, row.depth, row.parent_id,
            row.child_counts, tuple(f.rule for f in row.findings),
            row.state_since if not row.findings else None)


@pytest.mark.parametrize("config", CONFIGS, ids=["default", "short-dwells"])
@pytest.mark.parametrize("name", FIXTURES)
def test_incremental_rows_equal_fresh_rows_at_every_moment(name: str, config) -> None:
    frames = _frames(name)
    ref = Supervisor(config, incremental=False)
    inc = Supervisor(config)
    screen = Supervisor(config)
    shown: dict = {}
    i = 0
    for now in _samples(frames, config):
        while i < len(frames) and (frame_time(frames[i]) or now) <= now:
            for sup in (ref, inc, screen):
                feed(sup, [frames[i]])
            i += 1
        expected = ref.view(now)
        got = inc.view(now)
        assert got.rows == expected.rows, f"{name} at {now}"
        assert [r.child_counts for r in got.rows] == [r.child_counts for r in expected.rows]
        assert got.findings == expected.findings and got.counts == expected.counts
        for thread_id, row in screen.changed_rows(now).items():
            if row is None:
                shown.pop(thread_id, None)
            else:
                shown[thread_id] = row
        assert {t: _comparable(r) for t, r in shown.items()} == \
            {r.id: _comparable(r) for r in expected.rows}, f"{name} at {now}"


def test_a_silent_child_is_flagged_at_its_dwell_without_any_new_event() -> None:
    """No event arrives after the stream goes quiet: the heap of moments alone re-derives the
    rows, and each turns stuck at the same sample as a fresh derivation says it is."""
    config = CONFIGS[1]
    frames = _frames("stuck_rules")
    sup, ref = Supervisor(config), Supervisor(config, incremental=False)
    feed(sup, frames)
    feed(ref, frames)
    last = max(t for fr in frames if (t := frame_time(fr)) is not None)
    seen: dict = {}
    expected: dict = {}
    t = last
    while t < last + timedelta(seconds=config.no_progress_s + 5):
        for tid, row in sup.changed_rows(t).items():
            if row is not None and row.state == "stuck":
                seen.setdefault(tid, t)
        for row in ref.view(t).rows:
            if row.state == "stuck":
                expected.setdefault(row.id, t)
        t += timedelta(seconds=0.25)
    assert any(when > last for when in expected.values()), "nothing turned stuck in silence"
    assert seen == expected


def test_a_checkin_deadline_reaches_the_screen_without_any_new_event() -> None:
    _, child = task_ids("ready-1")
    sup = supervisor("seed004_detached", until="after-settle")
    row = sup.row(child, at(130))
    plan = plan_checkin(row, command_id="cmd-1", message_id="m-checkin", now=at(130), timeout_s=10)
    sup = supervisor("seed004_detached", config=DetectorConfig(detached_session_dwell_s=600))
    sup.record_checkin(plan.checkin)
    sup.changed_rows(at(139))
    assert sup.changed_rows(at(139.5)).get(child, None) is None or \
        sup.row(child, at(139.5)).state != "stuck"
    changed = sup.changed_rows(at(141))
    assert changed[child] is not None and changed[child].state == "stuck"


def test_moments_nest_and_bound_the_enclosing_derivation() -> None:
    with Collect() as outer:
        note(at(50))
        with Collect() as inner:
            assert not held(at(0), at(10), 30)      # flips at 30
            assert not reached(at(20), at(10))      # flips at 20
            assert held(at(0), at(40), 30)          # already true: nothing to note
        note(None)
    assert inner.earliest == at(20) and outer.earliest == at(20)


def test_changed_rows_reports_only_rows_that_changed() -> None:
    sup = supervisor("seed004_healthy")
    first = sup.changed_rows(at(500))
    assert first and all(r is not None for r in first.values())
    assert sup.changed_rows(at(500)) == {}
    # a minute later nothing time-dependent is pending in a healthy, finished tree
    assert {t for t, r in sup.changed_rows(at(560)).items() if r is None or not r.findings} == set()


def test_the_heap_of_moments_stays_proportional_to_the_rows() -> None:
    sup = supervisor("slow_progress")
    frames = _frames("slow_progress")
    t0 = max(t for fr in frames if (t := frame_time(fr)) is not None)
    for k in range(3000):  # many re-derivations, each leaving a far moment behind
        for tid in list(sup._cache.entries):
            sup._ix.touch(tid)
        sup.changed_rows(t0 + timedelta(milliseconds=k))
    assert len(sup._cache._heap) <= 2 * len(sup._cache.entries) + 64


@pytest.mark.parametrize("name", FIXTURES)
def test_the_kept_interest_equals_a_fresh_one_after_every_item(name: str) -> None:
    ref, inc = Supervisor(incremental=False), Supervisor()
    for frame in _frames(name):
        for sup in (ref, inc):
            feed(sup, [frame])
        assert inc.threads_of_interest() == ref.threads_of_interest()
    for thread_id in list(inc.threads_of_interest()):  # unsubscribing changes it too
        for sup in (ref, inc):
            sup.forget_thread(thread_id)
        assert inc.threads_of_interest() == ref.threads_of_interest()
