"""Serialized waits (delegation.md §7.2 rank 2): wait siblings that arrived one at a time."""

from __future__ import annotations

import itertools
from collections import defaultdict
from datetime import datetime

from t3tui.model.config import DetectorConfig
from t3tui.model.context import ThreadContext
from t3tui.model.detectors.common import declares
from t3tui.model.facts import TaskFacts
from t3tui.model.findings import SERIALIZED_WAIT, Finding
from t3tui.model.wire import iso


def serial_pairs(tasks: tuple[TaskFacts, ...], config: DetectorConfig) -> list[tuple[TaskFacts, TaskFacts]]:
    """Consecutive wait-mode siblings of one parent run where the next one arrived only once the
    previous wait had returned (within [return - tolerance, return + window]; the tolerance is
    at most half of the previous wait's own length)."""
    if len(tasks) < 2:
        return []  # no pair (most threads: a leaf has no task rows)
    by_run: dict[str | None, list[TaskFacts]] = defaultdict(list)
    for task in tasks:
        if task.mode == "wait" and task.started_at is not None:
            by_run[task.run_id].append(task)
    pairs = []
    for siblings in by_run.values():
        siblings.sort(key=lambda t: (t.started_at, t.task_id))
        for prev, nxt in itertools.pairwise(siblings):
            returned = prev.returned_at()
            if returned is None or nxt.started_at is None:
                continue  # the previous wait is still open: the next one arrived in parallel
            gap = (nxt.started_at - returned).total_seconds()
            # A short wait must not make parallel siblings look serial: the next call may lag
            # the previous one's return by at most half of that wait, whatever the tolerance.
            waited = (returned - prev.started_at).total_seconds() if prev.started_at else 0.0
            tolerance = min(config.serial_tolerance_s, max(waited, 0.0) / 2)
            if -tolerance <= gap <= config.serial_window_s:
                pairs.append((prev, nxt))
    return pairs


@declares(depends=("own.id", "own.tasks"))
def serialized_findings(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    pairs = serial_pairs(ctx.own.tasks, config)
    if not pairs:
        return []
    names = [p.title or p.client_request_id or p.task_id for pair in pairs[:1] for p in pair]
    evidence = [
        {"runId": prev.run_id, "previousTaskId": prev.task_id, "previousTitle": prev.title,
         "previousReturnedAt": iso(prev.returned_at()), "previousWaitResult": prev.wait_result(now),
         "previousTimeoutMs": prev.timeout_ms, "nextTaskId": nxt.task_id, "nextTitle": nxt.title,
         "nextArrivedAt": iso(nxt.started_at),
         "gapSeconds": round((nxt.started_at - returned).total_seconds(), 3)}
        for prev, nxt in pairs if (returned := prev.returned_at()) and nxt.started_at
    ]
    return [Finding(
        SERIALIZED_WAIT, ctx.own.id, "serial-arrival",
        f"wait calls ran one at a time: {names[1]!s} arrived only when the wait on {names[0]!s} "
        f"returned ({len(pairs)} serialized pair{'s' if len(pairs) > 1 else ''})",
        {"pairs": evidence, "toleranceSeconds": config.serial_tolerance_s,
         "windowSeconds": config.serial_window_s},
        pairs[0][1].started_at,
    )]
