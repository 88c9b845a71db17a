"""`watch`'s changed-rows path (`ChangeTracker` over `changed_rows`) prints exactly what a
whole view and a diff of every row (`changes(previous, view)`) would print, at every moment
of every recorded or synthetic stream fixture (issue 25)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from t3tui.model import ChangeTracker, DetectorConfig, Supervisor, changes
from tests.model.replay import feed, frame_time, load
from tests.model.timeline import FRAMES

FIXTURES = sorted(p.stem for p in FRAMES.glob("*.json")
                  if {"live", "recorded"} & set(json.loads(p.read_text())))
# short dwells, so that every rule flips (and clears) inside the replayed span
SHORT = DetectorConfig(
    provider_finished_dwell_s=3, detached_session_dwell_s=2, no_progress_s=7,
    drain_too_long_s=4, undelivered_dwell_s=5, claimed_dwell_s=6, orphaned_dwell_s=2,
    phantom_grace_s=3)


def _frames(name: str) -> list[dict]:
    doc = load(name)
    return [fr for fr in doc.get("live", doc.get("recorded", [])) if "mark" not in fr]


def _comparable(change) -> tuple:
    finding = change.finding.key if change.finding is not None else None
    return (change.kind, change.thread_id, change.old_state, change.new_state, finding)


@pytest.mark.parametrize("config", [DetectorConfig(), SHORT], ids=["default", "short-dwells"])
@pytest.mark.parametrize("name", FIXTURES)
def test_changed_rows_give_the_changes_a_whole_view_diff_gives(name: str, config) -> None:
    frames = _frames(name)
    times = sorted({t for fr in frames if (t := frame_time(fr)) is not None})
    # the baseline after the first frame (a watcher starts on a synchronized tree), then a
    # sample at every frame and on a grid past the longest dwell
    samples = sorted({*times, *(times[0] + timedelta(seconds=0.45 * k) for k in range(
        int(((times[-1] - times[0]).total_seconds() + config.no_progress_s + 20) / 0.45)))})
    ref, sup = Supervisor(config), Supervisor(config)
    feed(ref, frames[:1])
    feed(sup, frames[:1])
    previous = ref.view(samples[0])
    tracker = ChangeTracker(sup.view(samples[0]))
    sup.changed_rows(samples[0])
    i, seen = 1, 0
    for now in samples[1:]:
        while i < len(frames) and (frame_time(frames[i]) or now) <= now:
            feed(ref, [frames[i]])
            feed(sup, [frames[i]])
            i += 1
        view = ref.view(now)
        expected = sorted(map(_comparable, changes(previous, view)))
        got = sorted(map(_comparable, tracker.update(sup.changed_rows(now), now)))
        assert got == expected, f"{name} at {now}"
        previous, seen = view, seen + len(got)
    assert seen, f"{name}: nothing changed, the comparison proved nothing"
