"""`t3tui settle THREAD [--force]`: settle a thread, guarded, and confirm from the stream.

Refuses (exit 1) when an unsettled descendant shares a provider session with the thread,
because the settle would detach it (seed 004), unless `--force`. The server's own refusal is
shown verbatim. Success is reported only once the stream shows `settledOverride: settled`.
"""

from __future__ import annotations

import argparse

from rich.text import Text

from t3tui.client.outcome import Accepted, Rejected, new_command_id
from t3tui.client.settle_guard import settle_risks
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
from t3tui.protocol.commands import ThreadSettle


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "settle",
        help="settle a thread (refuses when children share its provider session)",
        description=(
            "Settle THREAD and confirm it from the event stream. Refuses when an unsettled "
            "child shares the thread's provider session (settling would detach it and can "
            "leave the child stuck), unless --force. Exit 0: settled; 1: refused or not "
            "confirmed; 2: error."
        ),
    )
    parser.add_argument("thread", metavar="THREAD", help="thread id, unique id prefix or title")
    parser.add_argument(
        "--force", action="store_true", help="settle even when children share its session"
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=15.0,
        metavar="S",
        help="wait S seconds for the stream to confirm (default: 15)",
    )
    add_server_arguments(parser)


def run(args: argparse.Namespace) -> int:
    out = console()

    async def main() -> int:
        async with supervised(args) as (session, supervisor):
            view = supervisor.view(now())
            row = find_thread(view, args.thread)
            title = row.title or row.id
            if row.settled:
                out.print(Text("already settled · ").append(title))
                return EXIT_OK
            if not args.force:
                kids = {c.id: c for c in view.unsettled_descendants(row.id)}
                risks = await settle_risks(session, row.id, kids)
                if risks:
                    out.print(Text("refused: ", style="bold red").append(title))
                    for risk in risks:
                        line = Text("  child ")
                        line.append(kids[risk.child_id].title or risk.child_id, style="bold")
                        line.append(f" ({risk.child_id}) shares provider session ")
                        line.append(risk.session_id)
                        out.print(line)
                    out.print(
                        "Settling detaches that session; the child's next turn can then hang "
                        "with its reply lost. Settle the children first, or pass --force."
                    )
                    return EXIT_FLAGGED
            command = ThreadSettle(command_id=new_command_id(), thread_id=row.id)
            outcome = await session.dispatch_until_known(command, args.timeout)
            if isinstance(outcome, Rejected):
                line = Text("server refused: ", style="bold red").append(outcome.message)
                if outcome.detail:
                    line.append(f"\n{outcome.detail}")
                out.print(line)
                return EXIT_FLAGGED
            if not isinstance(outcome, Accepted):
                raise CommandError(f"settle outcome unknown: {outcome.reason}")

            def settled() -> bool:
                current = supervisor.row(row.id, now())
                return current is not None and current.settled

            if await session.wait_until(settled, args.timeout):
                out.print(Text("settled · ", style="bold green").append(title))
                return EXIT_OK
            out.print(
                Text("accepted, but the stream did not show it settled within ", style="yellow")
                .append(f"{args.timeout:g}s · ")
                .append(title)
            )
            return EXIT_FLAGGED

    return run_async(main)
