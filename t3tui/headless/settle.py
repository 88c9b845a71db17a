"""`t3tui settle THREAD [--force]`: settle a thread, guarded, and confirm from the stream.

Refuses (exit 1) when an unsettled descendant shares a provider session with the thread,
because the settle would detach it (seed 004), unless `--force`. The server's own refusal is
shown verbatim. Success is reported only once the stream shows `settledOverride: settled`.
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.text import Text

from t3tui import actions
from t3tui.actions import no_report
from t3tui.headless import common
from t3tui.headless.common import EXIT_FLAGGED, EXIT_OK, OnThread
from t3tui.headless.render import title_of
from t3tui.headless.thread_command import run_on_thread
from t3tui.model.labels import short_id


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = common.add_thread_command(
        subparsers, "settle",
        help="settle a thread (refuses when children share its provider session)",
        description=(
            "Settle THREAD and confirm it from the event stream. Refuses when an unsettled "
            "child shares the thread's provider session (settling would detach it and can "
            "leave the child stuck), unless --force. Exit 0: settled; 1: refused or not "
            "confirmed; 2: error."
        ),
    )
    parser.add_argument(
        "--force", action="store_true", help="settle even when children share its session"
    )
    common.add_timeout(parser, "wait S seconds for the stream to confirm (default: 15)", 15.0)
    common.add_server_arguments(parser)


async def refused(on: OnThread) -> list[Text]:
    """Why settling would strand a child (empty when it would not)."""
    check = await actions.check_settle(on.port, on.view, on.row.id)
    kids = {c.id: c for c in check.unsettled}
    risks = check.risks
    if not risks:
        return []
    lines = [Text("refused: ", style="bold red").append(title_of(on.row, on.row.id))]
    for risk in risks:
        line = Text("  child ").append(title_of(kids[risk.child_id], risk.child_id), style="bold")
        line.append(f" ({short_id(risk.child_id)}) shares provider session {risk.session_id}")
        lines.append(line)
    lines.append(Text(
        "Settling detaches that session; the child's next turn can then hang with its reply "
        "lost. Settle the children first, or pass --force."
    ))
    return lines


def run(args: argparse.Namespace) -> int:
    return run_on_thread(args, settle)


async def settle(on: OnThread, out: Console, args: argparse.Namespace) -> int:
    row, title = on.row, title_of(on.row, on.row.id)
    if row.settled:
        out.print(Text("already settled · ").append(title))
        return EXIT_OK
    if not args.force and (lines := await refused(on)):
        for line in lines:
            out.print(line)
        return EXIT_FLAGGED
    outcome = await actions.settle(on.port, row.id, report=no_report, clock=common.now,
                                   timeout=args.timeout)
    if not common.answered(outcome, out):
        return EXIT_FLAGGED
    if outcome.ok:
        out.print(Text("settled · ", style="bold green").append(title))
        return EXIT_OK
    out.print(
        Text("accepted, but the stream did not show it settled within ", style="yellow")
        .append(f"{args.timeout:g}s · ")
        .append(title)
    )
    return EXIT_FLAGGED
