"""`t3tui interrupt THREAD [--child|--parent]`: interrupt one run and confirm from the stream.

`--child` targets the child whose result a hung wait call of THREAD is blocked on; `--parent`
targets THREAD's parent. Success is reported only when the stream shows the run no longer
active; otherwise it says plainly that the interrupt did not land in time.
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.text import Text

from t3tui.client.outcome import new_command_id
from t3tui.headless import common
from t3tui.headless.common import EXIT_FLAGGED, EXIT_OK, CommandError, OnThread
from t3tui.headless.render import title_of
from t3tui.model import SupervisorView, ThreadRow
from t3tui.protocol.commands import RunInterrupt

REASON = "t3tui: user interrupt"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = common.add_thread_command(
        subparsers, "interrupt",
        help="interrupt a thread's active run and confirm it stopped",
        description=(
            "Interrupt the active run of THREAD (or of the child its wait is blocked on, or of "
            "its parent) and wait for the stream to show the run ended. Exit 0: stopped; "
            "1: refused or not confirmed in time; 2: error."
        ),
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--child", action="store_true", help="the child that THREAD's hung wait is blocked on"
    )
    which.add_argument("--parent", action="store_true", help="THREAD's parent")
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
        ids = ", ".join(c.id for c in waited)
        raise CommandError(f"{row.id} waits on {len(waited)} children ({ids}); name one")
    raise CommandError(f"{row.id} is not blocked in a wait on a running child")


def pick_target(view: SupervisorView, row: ThreadRow, args: argparse.Namespace) -> ThreadRow:
    if args.child:
        return blocking_child(view, row)
    if args.parent:
        parent = view.row(row.parent_id) if row.parent_id else None
        if parent is None:
            raise CommandError(f"{row.id} has no parent on this server")
        return parent
    return row


def run(args: argparse.Namespace) -> int:
    return common.run_on_thread(args, interrupt)


async def interrupt(on: OnThread, out: Console, args: argparse.Namespace) -> int:
    target = pick_target(on.view, on.row, args)
    title = title_of(target, target.id)
    run_id = target.active_run_id
    if run_id is None:
        out.print(Text("nothing to interrupt: no active run · ").append(title))
        return EXIT_FLAGGED
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
        "The provider may have nothing left to interrupt (a lost turn). "
        "Check `t3tui status`; settling or a new message may be needed."
    )
    return EXIT_FLAGGED
