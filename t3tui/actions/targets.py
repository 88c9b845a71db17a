"""What an action acts on (pure): the child a hung wait is blocked on, the parent, the runs an
interrupt could stop (least destructive first), the order a tree is stopped in."""

from __future__ import annotations

from dataclasses import dataclass

from t3tui.model import SupervisorView, ThreadRow
from t3tui.model.findings import RUNAWAY_PROVIDER
from t3tui.model.forwarding import stop_order, subtree

FORCE_CONSEQUENCE = ("detaches its provider session, which ends a run whose provider no longer "
                     "answers; other threads sharing that session lose it too")
RUNAWAY_CONSEQUENCE = ("its run already ended, but its provider turn runs on: detaching its "
                       "provider session stops that turn and its processes; other threads "
                       "sharing that session lose it too")


@dataclass(frozen=True)
class InterruptChoice:
    """One way to stop something: the run to interrupt and what it costs, in words."""

    key: str
    label: str
    thread_id: str
    run_id: str
    title: str
    consequence: str
    stops: str = ""  # what it stops, when not "run RUN of TITLE" (a runaway's provider)


def runaway_run(row: ThreadRow) -> str | None:
    """The run whose provider ran on after it ended interrupted (T3 #5587: the
    `runaway_provider` finding on `row`, which has no active run): what a forced stop ends.
    None otherwise."""
    if row.active_run_id is not None:
        return None
    for finding in row.findings:
        run_id = finding.evidence.get("runId") if finding.kind == RUNAWAY_PROVIDER else None
        if isinstance(run_id, str) and run_id:
            return run_id
    return None


def stoppable_run(row: ThreadRow) -> str | None:
    """The run a forced stop of `row` acts on: its active run, else a runaway's run."""
    return row.active_run_id or runaway_run(row)


def in_tree_stop(row: ThreadRow) -> bool:
    """Whether a tree stop acts on `row`: a run to interrupt, or a runaway to force-stop.
    The one predicate of a tree stop: its targets (`stop_targets`) and whether it has any
    (`tree_stoppable`: `I`'s gate, a policy's) both read it."""
    return stoppable_run(row) is not None


def tree_stoppable(view: SupervisorView, root_id: str) -> bool:
    """Whether a tree stop of `root_id` has anything to stop: `stop_targets` is not empty
    (without building it: the first one found is enough)."""
    return any(in_tree_stop(row) for _, row in subtree(view, root_id))


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
    its provider session. A runaway (its run ended, its provider runs on) has only that."""
    if row.active_run_id is None:
        runaway = runaway_run(row)
        if runaway is None:
            return []
        return [InterruptChoice(
            key=f"force:{row.id}", label="Force stop", thread_id=row.id, run_id=runaway,
            title=_title(row), consequence=RUNAWAY_CONSEQUENCE,
            stops=f"the provider of “{_title(row)}” (run {runaway} ended interrupted)")]
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
            consequence=FORCE_CONSEQUENCE,
        ))
    return choices


def parent_of(view: SupervisorView, row: ThreadRow) -> ThreadRow | None:
    """`row`'s parent, when it is on this server."""
    return view.row(row.parent_id) if row.parent_id else None


@dataclass(frozen=True)
class StopTarget:
    """One run of a tree stop: the thread, the run, and its title for the summary.
    `runaway`: the run already ended and its provider runs on (T3 #5587): the forced stop
    ends it, not an interrupt. `restarted`: not chosen, but a run the stopped children's
    results started after the walk passed its thread (`restarts.stop_restarts`)."""

    thread_id: str
    run_id: str
    title: str
    runaway: bool = False
    restarted: bool = False


def stop_targets(view: SupervisorView, root_id: str) -> list[StopTarget]:
    """`root_id` and every descendant `in_tree_stop`: those with an active run, deepest first
    (`stop_order`); then every runaway among them (its run ended, its provider runs on),
    deepest first, for the forced stop. The forced stops come last: by then every run of the tree was interrupted,
    so a provider session a runaway shares with its stopped parent holds no turn of it."""
    rows = stop_order(view, root_id, wanted=in_tree_stop)
    active = [StopTarget(r.id, r.active_run_id, _title(r)) for r in rows
              if r.active_run_id is not None]
    runaways = [StopTarget(r.id, runaway_run(r) or "", _title(r), runaway=True) for r in rows
                if r.active_run_id is None]
    return active + runaways
