"""Detector thresholds and check-in defaults (all durations in seconds)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DetectorConfig:
    """Thresholds for the detectors; every default is documented in docs/ARCHITECTURE.md."""

    # stuck: the provider said the turn is over but the run is still starting/running
    provider_finished_dwell_s: float = 10.0
    # provider_finished_unheard: the provider's own record says the turn ended this long ago
    # and T3 still shows it running (T3 normally hears within a second)
    provider_unheard_dwell_s: float = 10.0
    # stuck: a session this thread runs in was detached (by any thread) and its active run
    # shows no agent progress since (a healthy turn shows its first item within ~2 s)
    detached_session_dwell_s: float = 5.0
    # stuck: running with no turn item / provider turn / message / shell update
    no_progress_s: float = 240.0
    # stuck: run in `waiting` (post-terminal drain)
    drain_too_long_s: float = 60.0
    # undelivered_result: terminal child, delivery pending, parent has no live run since
    undelivered_dwell_s: float = 60.0
    # undelivered_result: delivery `claimed` with no live/queued parent run since
    claimed_dwell_s: float = 300.0
    # orphaned_delivery: child still active while its wake is disposed / cohort not open
    orphaned_dwell_s: float = 5.0
    # serialized_wait: next wait sibling arrived within [return - tolerance, return + window]
    serial_tolerance_s: float = 2.0
    serial_window_s: float = 10.0
    # stuck (interrupt-not-landed): an accepted run.interrupt, the run still active, no result
    interrupt_landing_dwell_s: float = 20.0
    # runaway_provider: the run ended `interrupted` but its provider turn/thread still runs
    provider_after_interrupt_dwell_s: float = 15.0
    # duplicate_child: a dead wait's task arrived this close to the call's start (clock skew)
    duplicate_tolerance_s: float = 2.0
    # phantom_child: grace for a mentioned task to show up as a task row
    phantom_grace_s: float = 30.0
    # memory (model/retention.py): each thread keeps at least its latest N messages and runs
    # (and every active run, and what a check-in reads); older ones are dropped from memory,
    # not from the server or a recording. What the rules read of them is kept apart.
    keep_messages: int = 200
    keep_runs: int = 100
    # thread streams held at once (families, and threads with activity: model/interest.py);
    # past it the least recently active threads are not watched, and the views say how many
    watch_cap: int = 1000
    # check-ins
    checkin_text: str = "Reply exactly PONG"
    checkin_expect: str = "PONG"
    checkin_timeout_s: float = 120.0
