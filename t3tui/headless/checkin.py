"""`t3tui checkin THREAD`: send a check-in, print the verdict.

Exit 0 answered, 1 unanswered or busy, 2 error.
"""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.text import Text

from t3tui import actions
from t3tui.actions import no_report
from t3tui.headless import common
from t3tui.headless.common import EXIT_FLAGGED, EXIT_OK, CommandError, OnThread
from t3tui.headless.render import finding_lines, print_lines, title_of
from t3tui.headless.thread_command import run_on_thread


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = common.add_thread_command(
        subparsers, "checkin",
        help="ask a thread to answer (default: 'Reply exactly PONG') and report the verdict",
        description=(
            "Send a check-in message and wait for the answer. Prints answered (with latency), "
            "busy or unanswered. Exit 0: answered; 1: unanswered or busy; 2: error."
        ),
    )
    parser.add_argument(
        "--text", type=not_blank, help="message to send (default: 'Reply exactly PONG')"
    )
    parser.add_argument(
        "--expect", type=not_blank, help="text the answer must contain (default: PONG)"
    )
    common.add_timeout(parser, "deadline in seconds (default: 120)", None)
    parser.add_argument(
        "--no-queue",
        action="store_true",
        help="report busy instead of queueing behind a running turn",
    )
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    common.add_server_arguments(parser)


def not_blank(text: str) -> str:
    # A blank message would still start a run; a blank --expect would take any reply.
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def run(args: argparse.Namespace) -> int:
    return run_on_thread(args, checkin)


async def checkin(on: OnThread, out: Console, args: argparse.Namespace) -> int:
    row = on.row
    outcome = await actions.checkin(on.port, row.id, report=no_report, clock=common.now,
                                    text=args.text, expect=args.expect, timeout_s=args.timeout,
                                    queue_if_busy=not args.no_queue)
    if outcome.kind == "unknown":  # the check-in may or may not have reached the thread
        raise CommandError(outcome.message or outcome.text)
    verdict = outcome.value
    view = on.supervisor.view(common.now())
    findings = [f for f in view.findings if f.thread_id == row.id]
    answered = verdict.verdict == "answered"
    if args.json:
        document = {
            "threadId": row.id,
            "verdict": verdict.verdict,
            "reason": verdict.reason,
            "latencySeconds": verdict.latency_s,
            "findings": [{"kind": f.kind, "rule": f.rule, "reason": f.reason} for f in findings],
        }
        print(json.dumps(document, indent=2))
    else:
        line = Text().append(verdict.verdict, style="bold green" if answered else "bold red")
        if verdict.latency_s is not None:
            line.append(f" in {verdict.latency_s:.3g}s")
        line.append(" · ").append(title_of(row, row.id))
        # An answer's reason only repeats its latency; the others say why.
        if verdict.reason and not answered:
            line.append(": ").append(verdict.reason)
        out.print(line)
        for finding in findings:
            print_lines(out, finding_lines(out, finding, view))
    return EXIT_OK if answered else EXIT_FLAGGED
