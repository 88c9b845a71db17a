"""One truth whatever the stream delivers: incremental rows equal a fresh derivation.

Every stream fixture, under every detector config the incremental tests use, is delivered as
a real connection might: frames lost, shell and thread streams interleaved differently (each
keeps its own order), resumes that fall back to a snapshot (`tests/model/streams.py`). After
every item, the incremental supervisor (asked for `view`, and a screen asking only for
`changed_rows`) must equal `Supervisor(incremental=False)`, which derives every row afresh.
Deliveries Hypothesis found disagreeing are kept below as regular tests.
"""

from __future__ import annotations

from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from t3tui.model import DetectorConfig, Supervisor
from t3tui.model.wire import ModelInputError
from tests.model.replay import feed, frame_time
from tests.model.streams import STALE, perturbed
from tests.model.test_incremental import CONFIGS, FIXTURES, _comparable, _frames

STEPS = (0, 0.3, 4, 61)


def _apply(sup: Supervisor, frame: dict) -> bool:
    if frame is STALE:
        sup.mark_stale()
        return True
    try:
        feed(sup, [frame])
    except (ModelInputError, ValueError):
        return False
    return True


def check_delivery(name: str, config: DetectorConfig, delivery: list[dict],
                   steps: list[float]) -> None:
    """Feed `delivery` to a fresh reference, an incremental supervisor and a screen; after
    each item (time moving on by the next of `steps`), all three must agree."""
    ref, inc, screen = Supervisor(config, incremental=False), Supervisor(config), Supervisor(config)
    shown: dict = {}
    now = None
    for k, frame in enumerate(delivery):
        oks = {_apply(s, frame) for s in (ref, inc, screen)}
        assert len(oks) == 1, f"{name} #{k}: one supervisor refused a frame the others took"
        at = frame_time(frame) if frame is not STALE else None
        if (at := at or now) is None:
            continue
        now = max(now or at, at) + timedelta(seconds=steps[k % len(steps)])
        expected = ref.view(now)
        got = inc.view(now)
        assert got.rows == expected.rows, f"{name} #{k} at {now}"
        assert [r.child_counts for r in got.rows] == [r.child_counts for r in expected.rows]
        assert got.findings == expected.findings and got.counts == expected.counts, f"{name} #{k}"
        for thread_id, row in screen.changed_rows(now).items():
            if row is None:
                shown.pop(thread_id, None)
            else:
                shown[thread_id] = row
        assert {t: _comparable(r) for t, r in shown.items()} == \
            {r.id: _comparable(r) for r in expected.rows}, f"{name} #{k} at {now} (screen)"
        assert inc.threads_of_interest() == ref.threads_of_interest(), f"{name} #{k}"


@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(name=st.sampled_from(FIXTURES), config=st.sampled_from(CONFIGS), data=st.data())
def test_incremental_equals_fresh_whatever_the_stream_delivers(
        name: str, config: DetectorConfig, data: st.DataObject) -> None:
    delivery = perturbed(_frames(name), data)
    steps = data.draw(st.lists(st.sampled_from(STEPS), min_size=1, max_size=8), label="steps")
    check_delivery(name, config, delivery, steps)


# -- deliveries Hypothesis found, kept as regular tests --


def test_a_wait_call_seen_after_its_task_row_reaches_the_child() -> None:
    """The parent's snapshot lost (its children's arrived): the `delegate_task` call that says
    the wait timed out comes after the task row, and the child's task row must read it."""
    frames = _frames("recorded_parallel_waits")
    check_delivery("recorded_parallel_waits", CONFIGS[0], frames[3:], [0])


def test_a_stream_whose_snapshot_was_lost_reads_stale_from_its_first_event() -> None:
    """The child's snapshot and `synchronized` lost, its events arrive: the projection they
    start makes the thread subscribed (and stale until its marker), not a patched row."""
    frames = [fr for fr in _frames("recorded_settle_fault")
              if not (fr.get("threadId", "").startswith("thread:delegated-task")
                      and fr["item"]["kind"] in ("snapshot", "synchronized"))]
    check_delivery("recorded_settle_fault", CONFIGS[0], frames, [0])
