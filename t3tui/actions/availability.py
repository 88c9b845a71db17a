"""Which actions apply to a thread right now, and if not, why (pure, over model rows).

The app's `check_action` dims a key when `unavailable` gives a reason and shows the reason;
a headless command prints it; a policy journals it. What an interrupt would touch
(`interrupt_choices`) is in `targets.py`.
"""

from __future__ import annotations

from datetime import datetime

from t3tui.actions.targets import runaway_run
from t3tui.model import ThreadRow
from t3tui.model.findings import RUNAWAY_PROVIDER
from t3tui.model.forwarding import forward_refusal, forwarded_refusal
from t3tui.model.remedy import remedy

# "interrupt" is the app's key (a run to interrupt, or a runaway provider to force-stop);
# "run_interrupt" is `run.interrupt` alone, "force_stop" the forced stop alone
NEEDS_ROW = frozenset({"open", "settle", "checkin", "interrupt", "answer", "message",
                       "stop_tree", "forward", "dispose", "acknowledge", "run_interrupt",
                       "force_stop"})
NEEDS_SERVER = NEEDS_ROW - {"open"}


def unavailable(
    action: str,
    row: ThreadRow | None,
    *,
    connected: bool,
    busy_actions: frozenset[str] = frozenset(),
    parent_forwards: dict[str, datetime | None] | None = None,
    stoppable_below: bool = False,
) -> str | None:
    """Why `action` cannot run on `row` now (one short line), or None when it can.

    `busy_actions` are action kinds already in flight on this thread (one at a time).
    `parent_forwards`: what the parent's messages already carry (`Supervisor.forwards`), so
    a result forwarded once is not forwarded again. `stoppable_below`: for "stop_tree",
    `targets.tree_stoppable(view, row.id)`, the predicate the tree stop's own targets are
    chosen by, so a lit key always has a run to stop and a dim one hides none.
    """
    if action not in NEEDS_ROW:
        return None
    if row is None:
        return "no thread selected"
    if action in NEEDS_SERVER and not connected:
        return "not connected to the server"
    if action in busy_actions:
        return f"a {action} is already in progress on this thread"
    native = row.origin == "provider_native"
    if action == "settle":
        if row.settled:
            return "already settled"
        if row.active_run_id is not None:
            return "it has an active run (the server refuses to settle it)"
        if row.pending_request is not None:
            return "it has a pending request (answer it first)"
    elif action in ("checkin", "message"):
        if native:
            return "provider-native child: the provider owns it, it cannot receive messages"
        if row.state == "creating":
            return "the child thread does not exist yet"
    elif action in ("interrupt", "force_stop"):
        if row.active_run_id is None and runaway_run(row) is None:
            return "no active run to interrupt"
    elif action == "run_interrupt" and row.active_run_id is None:
        return runaway_refusal(row) or "no active run to interrupt"
    elif action == "answer" and row.pending_request is None:
        return "no pending approval or question"
    elif action == "stop_tree":
        if not stoppable_below:
            return "nothing is running in this subtree"
    elif action == "forward":
        return forward_refusal(row) or forwarded_refusal(row, parent_forwards or {})
    elif action in ("dispose", "acknowledge") and row.task is None:
        return "not a delegated child: it has no completion delivery"
    return None


def runaway_refusal(row: ThreadRow) -> str | None:
    """Why an interrupt cannot stop a runaway provider, naming what does; None when `row`
    is not one."""
    run_id = runaway_run(row)
    cure = next((c for f in row.findings if f.kind == RUNAWAY_PROVIDER
                 and (c := remedy(f)) is not None), None)
    if run_id is None or cure is None:
        return None
    return f"no active run to interrupt: run {run_id} ended interrupted but its provider runs on; {cure}"
