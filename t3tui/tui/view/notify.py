"""Which transitions deserve a notification (toast and bell).

Only real transitions between two synchronized views (the model's `changes` already ignores
threads seen for the first time): a thread became stuck, needs input, or finished. Never for
a thread the user just acted on (their own interrupt), never for replayed history. Also when a child's
result will not reach its parent: an `undelivered_result` or `orphaned_delivery` finding that
appears on a thread already seen (not on first sight), or a parent turning `orphaned`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from t3tui.model import Change
from t3tui.tui.view.labels import glyph

# Leaving one of these for done/idle/settled counts as "finished".
WORKING = frozenset({"running", "waiting", "draining", "queued", "creating", "stuck", "needs-input",
                     "orphaned"})
FINISHED = frozenset({"done", "idle", "settled"})


@dataclass(frozen=True)
class Notice:
    event: str          # stuck | needs-input | finished | undelivered | orphaned
    thread_id: str
    text: str
    severity: str       # information | warning | error
    title: str = ""


def notices(
    found: Iterable[Change],
    *,
    events: frozenset[str],
    quiet: dict[str, datetime],
    now: datetime,
) -> list[Notice]:
    """Notices for `found` changes; `quiet` maps thread ids to the end of their quiet time."""
    out: list[Notice] = []
    seen: set[tuple[str, str]] = set()
    for change in found:
        until = quiet.get(change.thread_id)
        if until is not None and now < until:
            continue
        notice = _notice(change)
        if notice is None or notice.event not in events:
            continue
        key = (notice.event, notice.thread_id)
        if key not in seen:
            seen.add(key)
            out.append(notice)
    return out


def _notice(change: Change) -> Notice | None:
    title = change.title or change.thread_id
    finding = change.finding
    if change.kind == "finding" and finding is not None and change.old_state is not None:
        if finding.kind == "undelivered_result":
            return Notice("undelivered", change.thread_id,
                          f"⚑ {title}: its result never reached the parent ({finding.reason}); "
                          "forward it (F)", "warning", title)
        if finding.kind == "orphaned_delivery":
            return Notice("orphaned", change.thread_id,
                          f"⚑ {title}: {finding.reason}",  # the reason says it all
                          "warning", title)
    if change.kind == "state" and change.new_state == "orphaned":
        return Notice("orphaned", change.thread_id,
                      f"{glyph('orphaned')} {title}: {change.reason}", "warning", title)
    if change.kind == "state" and change.new_state == "stuck":
        return Notice("stuck", change.thread_id,
                      f"{glyph('stuck')} {title} looks stuck: {change.reason}", "error", title)
    if change.kind == "state" and change.new_state == "needs-input":
        return Notice("needs-input", change.thread_id,
                      f"{glyph('needs-input')} {title} needs input: {change.reason}", "warning",
                      title)
    if change.kind == "state" and change.old_state in WORKING and change.new_state in FINISHED:
        return Notice("finished", change.thread_id,
                      f"{glyph('done')} {title} finished ({change.new_state})", "information",
                      title)
    return None


HEADLINES = {"stuck": "look stuck", "needs-input": "need input", "finished": "finished",
             "undelivered": "have results their parents never got",
             "orphaned": "work for parents that will not be told"}


def grouped(found: list[Notice]) -> list[Notice]:
    """One toast per kind of event: a burst of finishes is one line, not a wall of toasts."""
    out = []
    for event in ("stuck", "needs-input", "undelivered", "orphaned", "finished"):
        same = [n for n in found if n.event == event]
        if len(same) == 1:
            out.append(same[0])
        elif same:
            names = ", ".join(n.title for n in same[:4]) + (" …" if len(same) > 4 else "")
            out.append(Notice(event, same[0].thread_id,
                              f"{len(same)} threads {HEADLINES[event]}: {names}",
                              same[0].severity, names))
    return out
