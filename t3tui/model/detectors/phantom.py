"""Phantom children (delegation.md §7.2 rank 1): tasks the parent claims that have no row."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from t3tui.model.config import DetectorConfig
from t3tui.model.context import ThreadContext
from t3tui.model.detectors.common import declares, held
from t3tui.model.findings import PHANTOM_CHILD, Finding
from t3tui.model.wire import earliest, iso


def _unmatched_claims(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[dict[str, Any]]:
    """Messages claiming more started children than the run has task rows."""
    tasks = ctx.own.tasks
    known = {n.casefold() for t in tasks for n in (t.client_request_id, t.title, t.task_id) if n}
    out = []
    for claim in ctx.own.claims:
        rows = [t for t in tasks if claim.run_id is None or t.run_id == claim.run_id]
        if len(rows) >= claim.count or not held(claim.at, now, config.phantom_grace_s):
            continue
        out.append({"messageId": claim.message_id, "runId": claim.run_id, "claimed": claim.count,
                    "taskRows": len(rows), "mentionedAt": iso(claim.at),
                    "missingNames": [n for n in claim.names if n.casefold() not in known]})
    return out


@declares(depends=("own.id", "own.mentions", "own.claims", "own.tasks", "task_known"),
          dwell="phantom_grace_s")
def phantom_findings(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    if not ctx.own.mentions and not ctx.own.claims:
        return []  # nothing named or claimed (most threads): nothing to look up
    missing = [
        (kind, value, at, source)
        for kind, value, at, source in ctx.own.mentions
        if not ctx.task_known(kind, value) and held(at, now, config.phantom_grace_s)
    ]
    claims = _unmatched_claims(ctx, config, now)
    if not missing and not claims:
        return []
    missing.sort(key=lambda m: (m[2] or now, m[1]))
    names = [value for _, value, _, _ in missing]
    for claim in claims:
        names.extend(n for n in claim["missingNames"] if n not in names)
    parts = []
    if names:
        parts.append(f"names {len(names)} task(s) with no task row: {', '.join(names)}")
    for claim in claims:
        parts.append(f"claims {claim['claimed']} started children, {claim['taskRows']} task row(s) exist")
    since = earliest(*(m[2] for m in missing), *(c.at for c in ctx.own.claims
                                                 if any(x["messageId"] == c.message_id for x in claims)))
    return [Finding(
        PHANTOM_CHILD, ctx.own.id, "claimed-not-real",
        "the agent " + "; ".join(parts),
        {"missing": [{"kind": k, "id": v, "mentionedAt": iso(at), "source": src}
                     for k, v, at, src in missing],
         "claims": claims,
         "knownTasks": [t.task_id for t in ctx.own.tasks],
         "graceSeconds": config.phantom_grace_s},
        since,
    )]
