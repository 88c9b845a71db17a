"""Bounded memory: what a thread keeps of its own history (issue 25).

A supervisor runs for days; a thread's conversation and runs grow with every turn. Each
thread keeps at least its latest `keep_messages` messages (by update time) and `keep_runs`
runs (by ordinal, with their attempts and provider turns), every active run, and what a
check-in reads (`pinned`); older ones are dropped from memory, not from the server or a
recording. What the rules read of them stays: a message's claim, mentions and progress time
were noted when it arrived; a run's cohort disposition and request time are kept here.
Trims in steps (a quarter over the bound), not on every item.
"""

from __future__ import annotations

from t3tui.model.config import DetectorConfig
from t3tui.model.projection import ACTIVE_RUN, Projection
from t3tui.model.wire import latest, obj, string, ts, ts_key


def retain(proj: Projection, config: DetectorConfig, pinned: frozenset[str] = frozenset()) -> None:
    """Trim one thread's projection to the bounds of `config` (`pinned`: ids to keep)."""
    _messages(proj, config.keep_messages, pinned)
    _runs(proj, config.keep_runs, pinned)


def _over(size: int, keep: int) -> bool:
    return size > keep + keep // 4


def _messages(proj: Projection, keep: int, pinned: frozenset[str]) -> None:
    msgs = proj.messages
    if not _over(len(msgs), keep):
        return
    # newest last; among equal times the first seen is newest, as `facts.preview`'s max() reads
    order = sorted(enumerate(msgs.items()), key=lambda x: (ts_key(x[1][1].get("updatedAt")), -x[0]))
    for _, (mid, _msg) in order[:len(msgs) - keep]:
        if mid not in pinned:
            del msgs[mid]


def _runs(proj: Projection, keep: int, pinned: frozenset[str]) -> None:
    runs = proj.runs
    if not _over(len(runs), keep):
        return
    # latest last; among equal ordinals the first seen is latest, as `latest_run`'s max() reads
    order = sorted(enumerate(runs.items()), key=lambda x: (x[1][1].get("ordinal") or 0, -x[0]))
    dropped = set()
    for _, (rid, run) in order[:len(runs) - keep]:
        if rid in pinned or run.get("status") in ACTIVE_RUN:
            continue
        if disposition := string(obj(run.get("delegatedCompletion")).get("disposition")):
            proj.dropped_cohorts[rid] = disposition
        proj.dropped_requested_at = latest(proj.dropped_requested_at, ts(run.get("requestedAt")))
        del runs[rid]
        proj.run_since.pop(rid, None)
        dropped.add(rid)
    attempts = {a for a, att in proj.attempts.items() if att.get("runId") in dropped}
    for attempt in attempts:
        del proj.attempts[attempt]
    for turn in [t for t, turn in proj.turns.items() if turn.get("runAttemptId") in attempts]:
        del proj.turns[turn]
