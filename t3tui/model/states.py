"""One supervisor state per thread, with a reason and (when the data says) since when."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from t3tui.model.context import ThreadContext
from t3tui.model.findings import (
    DUPLICATE_CHILD,
    ORPHANED_DELIVERY,
    PHANTOM_CHILD,
    RUNAWAY_PROVIDER,
    SERIALIZED_WAIT,
    STUCK_KINDS,
    Finding,
)
from t3tui.model.rows import (
    CREATING,
    DONE,
    DRAINING,
    IDLE,
    NEEDS_INPUT,
    ORPHANED,
    QUEUED,
    RUNNING,
    SETTLED,
    STUCK_STATE,
    WAITING,
)


class Derived(NamedTuple):
    """A thread's state (a tuple: one is made for every row derived)."""

    state: str
    reason: str
    since: datetime | None
    overlays: tuple[str, ...]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _done_reason(ctx: ThreadContext) -> str:
    task = ctx.task
    assert task is not None
    status = "" if task.status == "completed" else f" ({task.status})"
    if task.delivery in ("pending", "claimed"):
        return f"done{status} · not yet seen by parent"
    if task.delivery == "disposed":
        return f"done{status} · parent will not be told"
    return f"done{status}"


def _children(n: int) -> str:
    return f"{n} {'child' if n == 1 else 'children'}"


def _settled_reason(ctx: ThreadContext) -> str:
    """A settled thread whose own run is over still says what its children are doing."""
    parts = []
    if ctx.orphaned_children:
        parts.append(f"{_children(ctx.orphaned_children)} orphaned")
    if ctx.busy_children > ctx.orphaned_children:
        parts.append(f"{_children(ctx.busy_children - ctx.orphaned_children)} still running")
    if ctx.undelivered_children:
        parts.append(_plural(ctx.undelivered_children, "undelivered result"))
    return "settled" + "".join(f" · {p}" for p in parts)


def _waiting_reason(ctx: ThreadContext) -> str | None:
    own = ctx.own
    parts = []
    if ctx.busy_children:
        n = ctx.busy_children
        parts.append(_children(n))
        if ctx.orphaned_children:
            parts.append(f"{ctx.orphaned_children} orphaned")
    if ctx.undelivered_children:
        parts.append(_plural(ctx.undelivered_children, "undelivered result"))
    if own.background_tasks:
        parts.append(_plural(own.background_tasks, "background task"))
    return f"waiting ({', '.join(parts)})" if parts else None


# the overlays of a row with no finding, by (settled, provider-native): shared tuples
_QUIET = {(False, False): (), (True, False): ("settled",), (False, True): ("provider-native",),
          (True, True): ("settled", "provider-native")}


def _overlays(ctx: ThreadContext, findings: list[Finding], stuck: bool) -> tuple[str, ...]:
    kinds = {f.kind for f in findings}
    overlays = []
    if ctx.own.settled:
        overlays.append("settled")
    if ORPHANED_DELIVERY in kinds:
        overlays.append("orphaned-delivery")
    if stuck:
        overlays.append("stuck?")
    if SERIALIZED_WAIT in kinds:
        overlays.append("serialized")
    if PHANTOM_CHILD in kinds:
        overlays.append("phantom")
    if RUNAWAY_PROVIDER in kinds:
        overlays.append("runaway")
    if DUPLICATE_CHILD in kinds:
        overlays.append("duplicate")
    if ctx.provider_native:
        overlays.append("provider-native")
    return tuple(overlays)


# The own facts `derive` reads (its findings, task row and context parts aside): a patch
# that changed none of them and ran no rule keeps the row's state, reason and time
# (`Assembler.patch_row`; tests/model/test_rule_dependencies.py holds `derive` to it).
OWN_READS = frozenset({
    "pending", "has_record", "activity", "status", "run_requested_at", "run_started_at",
    "activity_since", "provider_turn_ended_at", "settled", "settled_at", "run_completed_at",
    "created_at", "background_tasks"})


def derive(ctx: ThreadContext, findings: list[Finding]) -> Derived:
    """Primary state by precedence (docs/ARCHITECTURE.md "model/"), plus overlays."""
    own, task = ctx.own, ctx.task
    overlays: tuple[str, ...]
    if findings:
        stuck = [f for f in findings if f.kind in STUCK_KINDS]
        overlays = _overlays(ctx, findings, bool(stuck))
    else:  # most rows: only the two overlays that do not come from a finding
        stuck = findings
        overlays = _QUIET[(own.settled, ctx.provider_native)]

    def out(state: str, reason: str, since: datetime | None) -> Derived:
        return Derived(state, reason, since, overlays)

    if own.pending is not None:
        return out(NEEDS_INPUT, f"needs input: {own.pending.kind}", own.pending.created_at)
    if stuck:
        top = stuck[0]
        return out(STUCK_STATE, f"stuck? {top.reason}", top.since)
    if not own.has_record and task is not None and not task.terminal:
        return out(CREATING, "creating", task.started_at)
    if own.activity == "preparing" or (own.activity is None and own.status in ("queued", "preparing")):
        return out(QUEUED, "queued", own.run_requested_at)
    if own.activity in ("starting", "running"):
        if ctx.blocked_on:
            first = ctx.blocked_on[0]
            name = first.title or first.client_request_id or first.task_id
            more = f" (+{len(ctx.blocked_on) - 1})" if len(ctx.blocked_on) > 1 else ""
            return out(WAITING, f"waiting on {name}{more}", first.started_at)
        return out(RUNNING, own.activity, own.run_started_at)
    if own.activity == "waiting":
        # a person reading "draining" needs to know it is the provider being done and T3
        # finishing up (delegation.md: brief; the drain-too-long rule flags it past ~60 s)
        return out(DRAINING, "draining: the provider finished the turn; T3 is finalizing the "
                   "run (checkpoint, results), normally within seconds",
                   own.activity_since or own.provider_turn_ended_at)
    waiting = _waiting_reason(ctx)
    if waiting and own.settled:
        # settled is the user's word for "done here": a child still running does not undo it
        return out(SETTLED, _settled_reason(ctx), own.settled_at)
    if ctx.busy_children and ctx.orphaned_children == ctx.busy_children:
        n = ctx.orphaned_children
        return out(ORPHANED, f"children orphaned ({n} still running; the parent will not be told)",
                   own.run_completed_at)
    if waiting:
        return out(WAITING, waiting, own.run_completed_at)
    if task is not None and task.terminal:
        # done since its last end: a run after the task (a check-in, interrupted, say) ended
        # later than the task did, and "done 3m" must not count from before that run
        ends = [t for t in (task.completed_at, own.run_completed_at) if t is not None]
        return out(DONE, _done_reason(ctx), max(ends) if ends else None)
    if own.settled:
        return out(SETTLED, "settled", own.settled_at)
    if own.status in (None, "idle"):
        return out(IDLE, "no runs", own.created_at)
    if own.status == "completed":
        return out(IDLE, "idle", own.run_completed_at)
    return out(IDLE, f"idle (last run {own.status})", own.run_completed_at)
