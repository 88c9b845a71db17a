"""`t3tui interrupt THREAD [--child|--parent|--tree] [--force]`: interrupt runs and confirm from
the stream.

`--tree` stops THREAD and every active descendant, deepest first, each confirmed from the
stream, then prints what stopped and what did not (exit 0 only when all did).

`--child` targets the child whose result a hung wait call of THREAD is blocked on; `--parent`
targets THREAD's parent. Success is reported only when the stream shows the run no longer
active; otherwise it says plainly that the interrupt did not land in time. `--force` sends the
forced stop instead (`force.py`), for a run whose interrupt did not land.
"""

from __future__ import annotations

import argparse
import io

from rich.console import Console
from rich.text import Text

from t3tui.client.outcome import new_command_id
from t3tui.headless import common
from t3tui.headless.common import EXIT_FLAGGED, EXIT_OK, CommandError, OnThread
from t3tui.headless.force import force_stop
from t3tui.headless.render import title_of
from t3tui.headless.thread_command import run_on_thread
from t3tui.model import SupervisorView, ThreadRow
from t3tui.model.forwarding import stop_order
from t3tui.model.labels import short_id
from t3tui.protocol.commands import RunInterrupt

REASON = "t3tui: user interrupt"


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
                       help="THREAD and every active descendant, deepest first")
    parser.add_argument(
        "--force", action="store_true",
        help="forced stop, for a run whose interrupt did not land: detach its provider "
             "session (as the app's forced stop does); other threads sharing that session "
             "lose it too")
    common.add_timeout(parser, "wait S seconds for the run to end (default: 15)", 15.0)
    common.add_server_arguments(parser)


def blocking_child(view: SupervisorView, row: ThreadRow) -> ThreadRow:
    """The live child whose open wait call keeps `row`'s run blocked."""
    children = [c for c in (view.row(i) for i in row.children) if c is not None]
    waited = [
        c for c in children
        if c.active_run_id and c.task is not None and c.task.mode == "wait"
        and c.task.wait_result == "open"
    ]
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
        parent = view.row(row.parent_id) if row.parent_id else None
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
    run_id = target.active_run_id
    if run_id is None:
        out.print(Text("nothing to interrupt: no active run · ").append(title))
        return EXIT_FLAGGED
    if args.force:
        return await force_stop(on, out, target, args.timeout)
    command = RunInterrupt(
        command_id=new_command_id(), thread_id=target.id, run_id=run_id, reason=REASON
    )
    sent = await common.send_and_confirm(
        on, command, target.id, lambda r: r.active_run_id != run_id, args.timeout, out
    )
    if sent.refused:
        return EXIT_FLAGGED
    if (stopped := sent.row) is not None:
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


async def interrupt_tree(on: OnThread, out: Console, args: argparse.Namespace) -> int:
    """Stop `on.row` and its active descendants, deepest first; a summary of each outcome."""
    targets = stop_order(on.view, on.row.id)
    if not targets:
        out.print(Text("nothing to interrupt: no active run in the subtree of ").append(
            title_of(on.row, on.row.id)))
        return EXIT_FLAGGED
    stopped: list[str] = []
    not_stopped: list[str] = []
    for target in targets:
        title = title_of(target, target.id)
        run_id = target.active_run_id
        assert run_id is not None
        now_row = on.supervisor.row(target.id, common.now())
        if now_row is None or now_row.active_run_id != run_id:
            # a parent whose wait returned when its child stopped may finish on its own
            stopped.append(target.id)
            out.print(Text("  ended        ", style="green").append(title)
                      .append(f"  run {run_id} ended on its own before its turn", style="dim"))
            continue
        command = RunInterrupt(command_id=new_command_id(), thread_id=target.id, run_id=run_id,
                               reason=REASON)
        said = io.StringIO()  # a refusal, verbatim, goes into this target's summary line
        sent = await common.send_and_confirm(
            on, command, target.id, lambda r, run_id=run_id: r.active_run_id != run_id,
            args.timeout, Console(file=said, highlight=False, emoji=False, width=10_000))
        if sent.refused:
            # refused because the run ended meanwhile (a parent whose wait returned when its
            # child stopped finishes its turn): the stream has the last word
            ended = await on.session.wait_until(
                lambda t=target.id, r=run_id: _ended(on, t, r), 2.0)
            if ended:
                stopped.append(target.id)
                out.print(Text("  ended        ", style="green").append(title).append(
                    f"  run {run_id} {ended.run_status or 'ended'} on its own", style="dim"))
                continue
        if sent.row is not None:
            stopped.append(target.id)
            line = Text("  stopped      ", style="green").append(title)
            line.append(f"  run {run_id} {sent.row.run_status or 'ended'}", style="dim")
        elif sent.refused:
            not_stopped.append(target.id)
            line = Text("  refused      ", style="red").append(title)
            line.append("  " + " ".join(said.getvalue().split()), style="dim")
        else:
            not_stopped.append(target.id)
            line = Text("  not stopped  ", style="yellow").append(title)
            line.append(f"  run {run_id} still active after {args.timeout:g}s", style="dim")
        out.print(line)
    head = Text(f"stopped {len(stopped)} of {len(targets)}", style="bold")
    if not_stopped:
        view = on.supervisor.view(common.now())
        rows = [r for r in (view.row(i) for i in not_stopped) if r is not None]
        shown = common.printable_ids(view, rows)
        head.append(" · still running: " + ", ".join(shown), style="yellow")
        head.append("\nA stop that does not land may need a forced stop:")
        for thread in shown:
            head.append(f"\n  t3tui interrupt {thread} --force")
    out.print(head)
    return EXIT_FLAGGED if not_stopped else EXIT_OK


def _ended(on: OnThread, thread_id: str, run_id: str) -> ThreadRow | None:
    row = on.supervisor.row(thread_id, common.now())
    return row if row is not None and row.active_run_id != run_id else None
