"""Which actions apply to a thread right now, and what an interrupt or a settle would touch.

Pure functions over model rows: the app's `check_action` reads `unavailable`, the
confirmation screens read `interrupt_choices` (and `SupervisorView.unsettled_descendants`).
"""

from __future__ import annotations

from dataclasses import dataclass

from t3tui.model import SupervisorView, ThreadRow
from t3tui.model.forwarding import forward_refusal

NEEDS_ROW = frozenset({"open", "settle", "checkin", "interrupt", "answer", "message",
                       "stop_tree", "forward", "dispose", "acknowledge"})
NEEDS_SERVER = frozenset({"settle", "checkin", "interrupt", "answer", "message",
                          "stop_tree", "forward", "dispose", "acknowledge"})
# a direct child in one of these states keeps something running below a thread
BUSY_STATES = frozenset({"running", "waiting", "queued", "creating", "draining", "stuck",
                         "needs-input", "orphaned"})


def unavailable(
    action: str,
    row: ThreadRow | None,
    *,
    connected: bool,
    busy_actions: frozenset[str] = frozenset(),
) -> str | None:
    """Why `action` cannot run on `row` now (one short line), or None when it can.

    `busy_actions` are action kinds already in flight on this thread (one at a time).
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
    elif action == "interrupt":
        if row.active_run_id is None:
            return "no active run to interrupt"
    elif action == "answer" and row.pending_request is None:
        return "no pending approval or question"
    elif action == "stop_tree":
        if row.active_run_id is None and not any(
                n for state, n in row.child_counts.items() if state in BUSY_STATES):
            return "nothing is running in this subtree"
    elif action == "forward":
        return forward_refusal(row)
    elif action in ("dispose", "acknowledge") and row.task is None:
        return "not a delegated child: it has no completion delivery"
    return None


@dataclass(frozen=True)
class InterruptChoice:
    """One way to stop something: the run to interrupt and what it costs, in words."""

    key: str
    label: str
    thread_id: str
    run_id: str
    title: str
    consequence: str


def _title(row: ThreadRow) -> str:
    return row.title or row.id


def blocking_children(view: SupervisorView, row: ThreadRow) -> list[ThreadRow]:
    """Live children that an open wait call of `row`'s run is blocked on."""
    out = []
    for child_id in row.children:
        child = view.row(child_id)
        if child is None or child.task is None:
            continue
        task = child.task
        waiting = task.mode == "wait" and task.wait_result == "open" and child.active_run_id
        if waiting and task.parent_run_id in (None, row.active_run_id):
            out.append(child)
    return out


def interrupt_choices(view: SupervisorView, row: ThreadRow, *,
                      force: bool = False) -> list[InterruptChoice]:
    """Least destructive first (delegation.md §9.1): for a parent blocked in a wait, stop the
    child it waits on (level 1) or the parent's own run (level 2); otherwise the row's run.
    With `force` (the row looks stuck, or an interrupt did not land), also level 3: detach
    its provider session."""
    if row.active_run_id is None:
        return []
    choices = []
    for child in blocking_children(view, row):
        assert child.active_run_id is not None
        choices.append(InterruptChoice(
            key=f"child:{child.id}",
            label=f"Stop child: {_title(child)}",
            thread_id=child.id,
            run_id=child.active_run_id,
            title=_title(child),
            consequence=(
                "the child's current work is lost; the wait returns with its status and the "
                "parent continues"
            ),
        ))
    live_kids = [
        c for c in (view.row(i) for i in row.children)
        if c is not None and c.active_run_id is not None
    ]
    if live_kids:
        names = ", ".join(_title(c) for c in live_kids)
        consequence = (
            "its current turn is lost; children started in that run keep running and will "
            f"not wake it: {names}"
        )
    else:
        consequence = "its current turn stops; work in progress is lost"
    label = "Interrupt parent run" if choices else "Interrupt"
    choices.append(InterruptChoice(
        key=f"run:{row.id}",
        label=label,
        thread_id=row.id,
        run_id=row.active_run_id,
        title=_title(row),
        consequence=consequence,
    ))
    if force:
        choices.append(InterruptChoice(
            key=f"force:{row.id}",
            label="Force stop",
            thread_id=row.id,
            run_id=row.active_run_id,
            title=_title(row),
            consequence=(
                "detaches its provider session, which ends a run whose provider no longer "
                "answers; other threads sharing that session lose it too"
            ),
        ))
    return choices
