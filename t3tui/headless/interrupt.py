"""`t3tui interrupt THREAD [--child|--parent]`: interrupt one run and confirm from the stream.

`--child` targets the child whose result a hung wait call of THREAD is blocked on; `--parent`
targets THREAD's parent. Success is reported only when the stream shows the run no longer
active; otherwise it says plainly that the interrupt did not land in time.
"""

from __future__ import annotations

import argparse

from rich.text import Text

from t3tui.client.outcome import Accepted, Rejected, new_command_id
from t3tui.headless.common import (
    EXIT_FLAGGED,
    EXIT_OK,
    CommandError,
    add_server_arguments,
    find_thread,
    now,
    positive_seconds,
    run_async,
    supervised,
)
from t3tui.headless.render import console
from t3tui.model import SupervisorView, ThreadRow
from t3tui.protocol.commands import RunInterrupt

REASON = "t3tui: user interrupt"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "interrupt",
        help="interrupt a thread's active run and confirm it stopped",
        description=(
            "Interrupt the active run of THREAD (or of the child its wait is blocked on, or of "
            "its parent) and wait for the stream to show the run ended. Exit 0: stopped; "
            "1: refused or not confirmed in time; 2: error."
        ),
    )
    parser.add_argument("thread", metavar="THREAD", help="thread id, unique id prefix or title")
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--child", action="store_true", help="the child that THREAD's hung wait is blocked on"
    )
    which.add_argument("--parent", action="store_true", help="THREAD's parent")
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=15.0,
        metavar="S",
        help="wait S seconds for the run to end (default: 15)",
    )
    add_server_arguments(parser)


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
    out = console()

    async def main() -> int:
        async with supervised(args) as (session, supervisor):
            view = supervisor.view(now())
            target = pick_target(view, find_thread(view, args.thread), args)
            title = target.title or target.id
            run_id = target.active_run_id
            if run_id is None:
                out.print(Text("nothing to interrupt: no active run · ").append(title))
                return EXIT_FLAGGED
            command = RunInterrupt(
                command_id=new_command_id(), thread_id=target.id, run_id=run_id, reason=REASON
            )
            outcome = await session.dispatch_until_known(command, args.timeout)
            if isinstance(outcome, Rejected):
                line = Text("server refused: ", style="bold red").append(outcome.message)
                if outcome.detail:
                    line.append(f"\n{outcome.detail}")
                out.print(line)
                return EXIT_FLAGGED
            if not isinstance(outcome, Accepted):
                raise CommandError(f"interrupt outcome unknown: {outcome.reason}")

            def ended() -> ThreadRow | None:
                current = supervisor.row(target.id, now())
                return current if current is not None and current.active_run_id != run_id else None

            stopped = await session.wait_until(ended, args.timeout)
            if stopped is not None:
                status = stopped.run_status if stopped.active_run_id is None else "ended"
                line = Text(f"run {run_id} {status} · ", style="bold green").append(title)
                out.print(line)
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

    return run_async(main)
