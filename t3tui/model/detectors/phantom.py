"""Phantom children (delegation.md §7.2 rank 1): tasks the parent names that have no row."""

from __future__ import annotations

from datetime import datetime

from t3tui.model.config import DetectorConfig
from t3tui.model.context import ThreadContext
from t3tui.model.detectors.common import held
from t3tui.model.findings import PHANTOM_CHILD, Finding
from t3tui.model.wire import iso


def phantom_findings(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    missing = [
        (kind, value, at, source)
        for kind, value, at, source in ctx.own.mentions
        if not ctx.task_known(kind, value) and held(at, now, config.phantom_grace_s)
    ]
    if not missing:
        return []
    missing.sort(key=lambda m: (m[2] or now, m[1]))
    names = ", ".join(value for _, value, _, _ in missing)
    return [Finding(
        PHANTOM_CHILD, ctx.own.id, "claimed-not-real",
        f"the agent names {len(missing)} task(s) with no task row: {names}",
        {"missing": [{"kind": k, "id": v, "mentionedAt": iso(at), "source": src}
                     for k, v, at, src in missing],
         "knownTasks": [t.task_id for t in ctx.own.tasks],
         "graceSeconds": config.phantom_grace_s},
        missing[0][2],
    )]
