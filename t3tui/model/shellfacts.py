"""The facts of a thread known only by its shell row: no stream held, so no projection.

Most threads of a big tree are such threads, and a first tree builds every one of them (the
interest query reads every thread's facts before the first frame). `own_facts` reads them
through its projection-aware formulas, with the projection's parts each falling back to
nothing; here the same formulas are written out for the shell row alone, the parts no shell
row moves shared from one template. tests/model/test_shell_only_facts.py holds them to
`own_facts(..., proj=None)` on every fixture's rows and on generated rows.
"""

from __future__ import annotations

from typing import Any

from t3tui.model.facts import _NONE, OwnFacts, preview
from t3tui.model.rows import PendingRequest
from t3tui.model.turnfacts import turn_side
from t3tui.model.wire import string, ts

# The facts of a thread with no projection that no shell row moves (immutable values only:
# shared by every such thread's facts); `turn_side` gives its part of them
_SHELL_ONLY: dict[str, Any] = {
    "activity_since": None, **turn_side({}, None, None, None, None),
    "run_session_ids": _NONE, "interrupt_asked": None, "session_ids": _NONE,
    "subscribed": False, "has_record": True, "tasks": (), "mentions": (), "claims": (),
    "interrupt_answered": _NONE, "dead_waits": ()}


def shell_only_facts(thread_id: str, sh: dict[str, Any], location: str) -> OwnFacts:
    """`own_facts(thread_id, sh, location, None)` of a non-empty shell row `sh`."""
    get = sh.get
    lineage = get("lineage")
    parent = None
    if isinstance(lineage, dict) and lineage.get("relationshipToParent") == "subagent":
        parent = string(lineage.get("parentThreadId"))
    sel = get("modelSelection")
    if not isinstance(sel, dict):
        sel = {}
    pending = None
    req = get("pendingRuntimeRequest")
    if isinstance(req, dict) and req.get("id"):
        pending = PendingRequest(str(req["id"]), str(req.get("kind") or "request"),
                                 ts(req.get("createdAt")))
    archived = location == "archive" or bool(get("archivedAt")) or bool(get("deletedAt"))
    requested = ts(get("latestRunRequestedAt"))
    background = get("pendingBackgroundTasks")
    # without the frozen dataclass's `__init__`, as `facts._built`; the three dicts fresh
    # per thread, as `own_facts` gives them
    facts = object.__new__(OwnFacts)
    facts.__dict__.update(_SHELL_ONLY, cohorts={}, session_attached_at={}, task_index={})
    facts.__dict__.update({
        "id": thread_id,
        "title": string(get("title")) or thread_id,
        "created_at": ts(get("createdAt")),
        "visible": not archived,
        "lineage_parent": parent,
        "creation_source": string(get("creationSource")),
        "settled": get("settledOverride") == "settled",
        "settled_at": ts(get("settledAt")),
        "archived_at": ts(get("archivedAt")),
        "provider": string(get("providerInstanceId")) or string(sel.get("instanceId")),
        "model": string(sel.get("model")),
        # `run_side` with no projection: the shell row's run fields
        "status": string(get("status")),
        "activity": string(get("activityRunStatus")),
        "active_run_id": string(get("activeRunId")),
        "run_requested_at": requested,
        "run_started_at": ts(get("latestRunStartedAt")),
        "run_completed_at": ts(get("latestRunCompletedAt")),
        "latest_run_requested_at": requested,
        "pending": pending,
        "latest_message": preview(sh, None),
        "shell_updated_at": ts(get("updatedAt")),
        "background_tasks": sum(1 for t in background if isinstance(t, dict))
        if isinstance(background, list) else 0,
    })
    return facts


__all__ = ["shell_only_facts"]
