"""`t3tui interrupt THREAD [--child|--parent|--tree] [--force]`: interrupt runs and confirm from
the stream.

`--tree` stops THREAD and every active descendant, deepest first, each confirmed from the
stream, then force-stops each runaway among them (as `actions.stop_tree` does for the app),
then prints what stopped and what did not (exit 0 only when all did).

`--child` targets the child whose result a hung wait call of THREAD is blocked on; `--parent`
targets THREAD's parent. Success is reported only when the stream shows the run no longer
active; otherwise it says plainly that the interrupt did not land in time. `--force` sends the
forced stop instead (`t3tui.actions.force_stop`), for a run whose interrupt did not land or a
runaway provider (its run ended interrupted, its turn runs on: T3 #5587), which a plain
interrupt cannot stop: it says so and names the forced stop.
"""

from __future__ import annotations

import argparse
import io

from rich.console import Console
from rich.text import Text

from t3tui import actions
from t3tui.actions import Outcome, StopStep, no_report
from t3tui.headless import common
from t3tui.headless.common import EXIT_FLAGGED, EXIT_OK, CommandError, OnThread
from t3tui.headless.render import title_of
from t3tui.headless.thread_command import run_on_thread
from t3tui.model import SupervisorView, ThreadRow
from t3tui.model.labels import one_line, short_id
from t3tui.model.remedy import remedy_command


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = common.add_thread_command(
        subparsers, "interrupt",
        help="interrupt a thread's active run and confirm it stopped",
        description=(
            "Interrupt the active run of THREAD (or of the child its wait is blocked on, or of "
            "its parent) and wait for the stream to show the run ended. Exit 0: stopped; "
            "1: refused, nothing to interrupt, or not confirmed in time; 2: error."
        ),
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--child", action="store_true", help="the child that THREAD's hung wait is blocked on"
    )
    which.add_argument("--parent", action="store_true", help="THREAD's parent")
    which.add_argument("--tree", action="store_true",
                       help="THREAD and every active descendant, deepest first, then the "
                            "forced stop of each runaway among them")
    parser.add_argument(
        "--force", action="store_true",
        help="forced stop, for a run whose interrupt did not land or a provider that runs on "
             "after its run ended (runaway): detach its provider session (as the app's "
             "forced stop does); other threads sharing that session lose it too")
    common.add_timeout(parser, "wait S seconds for the run to end (default: 15)", 15.0)
    common.add_server_arguments(parser)


def blocking_child(view: SupervisorView, row: ThreadRow) -> ThreadRow:
    """The live child whose open wait call keeps `row`'s run blocked (`actions`' choice)."""
    waited = actions.blocking_children(view, row)
    if len(waited) == 1:
        return waited[0]
    if waited:
        ids = ", ".join(common.printable_ids(view, waited))
        raise CommandError(f"{short_id(row.id)} waits on {len(waited)} children ({ids}); "
                           "name one")
    raise CommandError(f"{short_id(row.id)} is not blocked in a wait on a running child")


def pick_target(view: SupervisorView, row: ThreadRow, args: argparse.Namespace) -> ThreadRow:
    if args.child:
        return blocking_child(view, row)
    if args.parent:
        parent = actions.parent_of(view, row)
        if parent is None:
            raise CommandError(f"{short_id(row.id)} has no parent on this server")
        return parent
    return row


def run(args: argparse.Namespace) -> int:
    return run_on_thread(args, interrupt)


async def interrupt(on: OnThread, out: Console, args: argparse.Namespace) -> int:
    if args.tree:
        if args.force:
            raise CommandError("--force stops one thread, not a --tree: force each one the "
                               "tree's summary names as still running")
        return await interrupt_tree(on, out, args)
    target = pick_target(on.view, on.row, args)
    title = title_of(target, target.id)
    if args.force and actions.stoppable_run(target) is not None:
        return await force_stop(on, out, target, args.timeout)
    run_id = target.active_run_id
    if run_id is None:
        runaway = actions.runaway_refusal(target)
        if runaway is None:
            out.print(Text("nothing to interrupt: no active run · ").append(title))
            return EXIT_FLAGGED
        out.print(Text(f"{runaway} · ").append(title))
        ref = common.printable_id(on.view, target)
        out.print(Text(next(c for f in target.findings if (c := remedy_command(f, ref)))))
        return EXIT_FLAGGED
    outcome = await actions.interrupt(on.port, target.id, run_id, report=no_report,
                                      clock=common.now, timeout=args.timeout)
    if not common.answered(outcome, out):
        return EXIT_FLAGGED
    if (stopped := outcome.row) is not None:
        status = stopped.run_status if stopped.active_run_id is None else "ended"
        out.print(Text(f"run {run_id} {status} · ", style="bold green").append(title))
        return EXIT_OK
    out.print(
        Text(f"interrupt requested, but run {run_id} was still active after ", style="yellow")
        .append(f"{args.timeout:g}s · ")
        .append(title)
    )
    out.print(
        "The provider may have nothing left to interrupt (a lost turn). Check `t3tui status`; "
        f"a forced stop may be needed: t3tui interrupt {common.printable_id(on.view, target)} "
        "--force"
    )
    return EXIT_FLAGGED


async def force_stop(on: OnThread, out: Console, target: ThreadRow, timeout: float) -> int:
    """`--force`: the app's forced stop (`actions.force_stop`: detach the thread's live
    provider sessions until its run ends, or a runaway's provider stops); the exit code. What
    it came to is the action's own sentence, as the app shows it: a refusal is the server's
    words and nothing more (no detach happened)."""
    title = title_of(target, target.id)
    run_id = actions.stoppable_run(target)
    assert run_id is not None
    outcome = await actions.force_stop(on.port, target.id, run_id, report=no_report,
                                       clock=common.now, timeout=timeout)
    if outcome.kind == "unavailable":
        out.print(Text(f"{outcome.text} · ", style="red").append(title))
        return EXIT_FLAGGED
    for step in outcome.value:  # each refused detach, verbatim, before the next was tried
        common.answered(step, out)  # an unknown outcome stops here (exit 2)
    if outcome.kind == "refused":
        return EXIT_FLAGGED
    style = "bold green" if outcome.ok else "yellow"
    out.print(Text(f"{outcome.text} · ", style=style).append(title))
    if outcome.ok:
        out.print(Text(f"detached provider session {outcome.extra['session']}", style="dim"))
    return EXIT_OK if outcome.ok else EXIT_FLAGGED


async def interrupt_tree(on: OnThread, out: Console, args: argparse.Namespace) -> int:
    """Stop `on.row` and its active descendants, deepest first; a line for each outcome as it
    comes, then a summary."""
    targets = actions.stop_targets(on.view, on.row.id)
    if not targets:
        out.print(Text("nothing to interrupt: no active run in the subtree of ").append(
            title_of(on.row, on.row.id)))
        return EXIT_FLAGGED

    def shown(step: StopStep) -> None:
        out.print(step_line(on.view, step, args.timeout))

    outcome = await actions.stop_tree(on.port, targets, root=on.row.id, report=no_report,
                                      clock=common.now, timeout=args.timeout, on_step=shown)
    common.answered(outcome, out)  # an unknown outcome stops here (exit 2)
    not_stopped = [s.target.thread_id for s in outcome.value if not s.stopped]
    total = len(outcome.value)  # the targets, and the runs their results started again
    head = Text(f"stopped {total - len(not_stopped)} of {total}", style="bold")
    for child, parent in outcome.extra.get("unsettled", ()):
        head.append(f"\nthe result of {child} had not reached {parent} after "
                    f"{args.timeout:g}s: it may start {parent} again", style="yellow")
    if not_stopped:
        view = on.supervisor.view(common.now())
        rows = [r for r in (view.row(i) for i in not_stopped) if r is not None]
        listed = common.printable_ids(view, rows)
        head.append(" · still running: " + ", ".join(listed), style="yellow")
        head.append("\nA stop that does not land may need a forced stop:")
        for thread in listed:
            head.append(f"\n  t3tui interrupt {thread} --force")
    out.print(head)
    return EXIT_FLAGGED if not_stopped else EXIT_OK


def step_line(view: SupervisorView, step: StopStep, timeout: float) -> Text:
    """One target's line of the tree summary."""
    target = step.target
    title = title_of(view.row(target.thread_id), target.thread_id)
    run_id, status = target.run_id, (step.row.run_status if step.row else None) or "ended"
    if step.row is not None and step.row.active_run_id not in (None, run_id):
        status = "ended"  # the row's status is of the run that began since (a woken parent)
    if step.kind == "ended_before":
        return Text("  ended        ", style="green").append(title).append(
            f"  run {run_id} ended on its own before its turn", style="dim")
    if step.kind == "ended":
        return Text("  ended        ", style="green").append(title).append(
            f"  run {run_id} {status} on its own", style="dim")
    again = " (started again on its stopped children's results)" if target.restarted else ""
    if step.kind == "stopped":
        return Text("  stopped      ", style="green").append(title).append(
            f"  run {run_id} {status}{again}", style="dim")
    if step.kind == "forced":
        return Text("  forced       ", style="green").append(title).append(
            f"  its provider ran on after run {run_id}: its session detached, its turn "
            "ended", style="dim")
    if step.kind == "skipped":
        return Text("  not sent     ", style="yellow").append(title).append(
            "  " + one_line(step.message or ""), style="dim")
    if step.kind == "refused":
        said = io.StringIO()  # the refusal, verbatim, as one line of this target's summary
        refusal = Outcome("refused", "", message=step.message, detail=step.detail)
        common.answered(refusal, Console(file=said, highlight=False, emoji=False, width=10_000))
        return Text("  refused      ", style="red").append(title).append(
            "  " + " ".join(said.getvalue().split()), style="dim")
    still = (f"its provider still ran after {timeout:g}s" if target.runaway
             else f"run {run_id} still active after {timeout:g}s")
    return Text("  not stopped  ", style="yellow").append(title).append(
        f"  {still}", style="dim")
