"""The triage report as a JSON-able document (`t3tui report --json`; Markdown renders it).

`build_report(TriageInput)` is pure: the caller (a replay, `t3tui.client.triage`) gathers the
view at the report's moment, the timeline moments, the commands sent and the check-ins.
Findings are listed generically (kind, rule, reason, evidence), so new detectors need nothing
here. Times are ISO UTC; agent text stays as it came (renderers quote it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from t3tui.model.findings import Finding
from t3tui.model.labels import FINDING_WORDS, glyph, provider_text, short_id, word
from t3tui.model.remedy import remedy
from t3tui.model.report.timeline import Moment
from t3tui.model.rows import SupervisorView, ThreadRow

REPORT_VERSION = 1


@dataclass(frozen=True)
class ActionDone:
    """A command the user sent to a thread of the lineage, and what became of it."""

    at: float
    command: str
    thread_id: str | None
    outcome: str  # accepted | rejected | unknown | pending
    message: str = ""
    confirmed_at: float | None = None
    confirmed: str = ""  # what the stream showed afterwards ("" when nothing)
    by: str = ""  # "policy 2" when a policy sent it (or decided not to: `outcome` says)


@dataclass(frozen=True)
class CheckInDone:
    thread_id: str
    text: str
    expect: str
    sent_at: datetime
    deadline: datetime
    verdict: str
    reason: str
    latency_s: float | None = None


@dataclass
class TriageInput:
    """Everything a report is made of; see `t3tui.client.triage.gather`."""

    thread_id: str
    view: SupervisorView
    moments: list[Moment]
    server: dict[str, Any]
    protocol_version: int | None
    t3tui_version: str
    source: dict[str, Any]
    flagged_at: dict[tuple[str, str, str], float] = field(default_factory=dict)
    actions: list[ActionDone] = field(default_factory=list)
    checkins: list[CheckInDone] = field(default_factory=list)


def iso(epoch: float | datetime | None) -> str | None:
    if epoch is None:
        return None
    at = epoch if isinstance(epoch, datetime) else datetime.fromtimestamp(epoch, UTC)
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def offset_text(seconds: float) -> str:
    """`+7 ms`, `+1.234 s`, `+1m34.5s` (the seed reports' relative offsets)."""
    if seconds < 1:
        return f"+{round(seconds * 1000)} ms"
    if seconds < 60:
        return f"+{seconds:.3f} s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"+{int(minutes)}m{rest:04.1f}s"
    hours, minutes = divmod(minutes, 60)
    return f"+{int(hours)}h{int(minutes):02d}m{int(rest):02d}s"


def lineage(view: SupervisorView, row: ThreadRow) -> tuple[ThreadRow | None, list[ThreadRow],
                                                            list[ThreadRow]]:
    """(parent, siblings, children) of `row` in `view`."""
    parent = view.row(row.parent_id) if row.parent_id else None
    siblings = [r for cid in (parent.children if parent else ()) if cid != row.id
                and (r := view.row(cid)) is not None]
    children = [r for cid in row.children if (r := view.row(cid)) is not None]
    return parent, siblings, children


def lineage_ids(view: SupervisorView, thread_id: str) -> list[str]:
    row = view.row(thread_id)
    if row is None:
        return [thread_id]
    parent, siblings, children = lineage(view, row)
    return [r.id for r in [*(p for p in [parent] if p), row, *siblings, *children]]


def _row_doc(row: ThreadRow) -> dict[str, Any]:
    return {"id": row.id, "shortId": short_id(row.id), "title": row.title, "state": row.state,
            "stateReason": row.state_reason, "settled": row.settled,
            "runStatus": row.run_status, "activeRunId": row.active_run_id,
            "provider": row.provider, "model": row.model,
            "findings": sorted({f.rule for f in row.findings})}


def _finding_doc(finding: Finding, flagged_at: float | None) -> dict[str, Any]:
    return {"kind": finding.kind, "threadId": finding.thread_id, "rule": finding.rule,
            "reason": finding.reason, "evidence": finding.evidence,
            "since": iso(finding.since), "flaggedAt": iso(flagged_at),
            "remedy": remedy(finding)}


def _tree(parent: ThreadRow | None, row: ThreadRow, siblings: list[ThreadRow],
          children: list[ThreadRow]) -> list[dict[str, Any]]:
    """The lineage as indented lines: parent, then its children (this thread among them,
    with its own children under it)."""
    lines: list[dict[str, Any]] = []

    def add(r: ThreadRow, depth: int, role: str) -> None:
        lines.append({"depth": depth, "threadId": r.id, "glyph": glyph(r.state),
                      "state": word(r.state), "title": r.title, "role": role,
                      "shortId": short_id(r.id)})

    depth = 0
    if parent is not None:
        add(parent, 0, "parent")
        depth = 1
    family = sorted([row, *siblings], key=lambda r: [*(parent.children if parent else ()),
                                                      r.id].index(r.id))
    for r in family:
        add(r, depth, "this thread" if r.id == row.id else "sibling")
        if r.id == row.id:
            for child in children:
                add(child, depth + 1, "child")
    return lines


def build_report(data: TriageInput) -> dict[str, Any]:
    view = data.view
    row = view.row(data.thread_id)
    if row is None:
        raise ValueError(f"thread {data.thread_id} is not in the view")
    parent, siblings, children = lineage(view, row)
    family = [r for r in [parent, row, *siblings, *children] if r is not None]
    ids = {r.id for r in family}
    findings = [f for f in view.findings if f.thread_id in ids]
    own = [f for f in findings if f.thread_id == row.id]
    top = own[0] if own else (findings[0] if findings else None)
    titles = {r.id: r.title for r in family}
    moments = sorted((m for m in data.moments if m.thread_id is None or m.thread_id in ids),
                     key=lambda m: m.order)
    timeline = []
    previous: float | None = None
    first = moments[0].at if moments else None
    for m in moments:
        timeline.append({
            "at": iso(m.at), "offset": None if previous is None else offset_text(
                max(0.0, m.at - previous)),
            "sinceStart": round(m.at - first, 6) if first is not None else 0.0,
            "kind": m.kind, "threadId": m.thread_id,
            "thread": titles.get(m.thread_id or "", m.thread_id),
            "role": _role(m.thread_id, row, parent), "text": m.text, "detail": m.detail,
            "serverTime": m.server})
        previous = m.at
    providers = sorted({p for r in family if (p := provider_text(r))})
    return {
        "reportVersion": REPORT_VERSION,
        "title": _title(top, row, view),
        "thread": _row_doc(row),
        "at": iso(view.now),
        "generatedBy": f"t3tui {data.t3tui_version}",
        "source": data.source,
        "environment": {
            "server": {k: data.server.get(k) for k in ("environmentId", "label",
                                                      "serverVersion", "platform")
                       if data.server.get(k) is not None},
            "protocolVersion": data.protocol_version,
            "providers": providers,
        },
        "lineage": {"parent": _row_doc(parent) if parent else None,
                    "siblings": [_row_doc(r) for r in siblings],
                    "children": [_row_doc(r) for r in children],
                    "tree": _tree(parent, row, siblings, children)},
        "findings": [_finding_doc(f, data.flagged_at.get(f.key)) for f in findings],
        "timeline": timeline,
        "actions": [{"at": iso(a.at), "command": a.command, "threadId": a.thread_id,
                     "thread": titles.get(a.thread_id or "", a.thread_id),
                     "outcome": a.outcome, "message": a.message,
                     "confirmedAt": iso(a.confirmed_at), "confirmed": a.confirmed,
                     "by": a.by}
                    for a in data.actions if a.thread_id in ids],
        "checkins": [{"threadId": c.thread_id, "thread": titles.get(c.thread_id, c.thread_id),
                      "text": c.text, "expect": c.expect, "sentAt": iso(c.sent_at),
                      "deadline": iso(c.deadline), "verdict": c.verdict, "reason": c.reason,
                      "latencySeconds": c.latency_s}
                     for c in data.checkins if c.thread_id in ids],
    }


def _role(thread_id: str | None, row: ThreadRow, parent: ThreadRow | None) -> str:
    if thread_id is None:
        return "client"
    if thread_id == row.id:
        return "this thread"
    if parent is not None and thread_id == parent.id:
        return "parent"
    return "sibling" if thread_id in (parent.children if parent else ()) else "child"


def _title(top: Finding | None, row: ThreadRow, view: SupervisorView) -> str:
    name = row.title or row.id
    if top is None:
        return f"Triage: {name} ({word(row.state)})"
    what = FINDING_WORDS.get(top.kind, top.kind)
    where = "" if top.thread_id == row.id else f" in the lineage of {name}"
    subject = name if top.thread_id == row.id else (
        (view.row(top.thread_id).title if view.row(top.thread_id) else top.thread_id) + where)
    kind = "child" if row.parent_id else "thread"
    return f"{what.capitalize()} {kind}: {subject} ({top.rule})"
