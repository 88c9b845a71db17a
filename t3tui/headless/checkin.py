"""`t3tui checkin THREAD`: send a check-in, print the verdict.

Exit 0 answered, 1 unanswered or busy, 2 error.
"""

from __future__ import annotations

import argparse
import json

from rich.text import Text

from t3tui.client.checkin import run_checkin
from t3tui.headless.common import (
    EXIT_FLAGGED,
    EXIT_OK,
    add_server_arguments,
    find_thread,
    now,
    positive_seconds,
    run_async,
    supervised,
)
from t3tui.headless.render import console, finding_line


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "checkin",
        help="ask a thread to answer (default: 'Reply exactly PONG') and report the verdict",
        description=(
            "Send a check-in message and wait for the answer. Prints answered (with latency), "
            "busy or unanswered. Exit 0: answered; 1: unanswered or busy; 2: error."
        ),
    )
    parser.add_argument("thread", metavar="THREAD", help="thread id, unique id prefix or title")
    parser.add_argument("--text", help="message to send (default: 'Reply exactly PONG')")
    parser.add_argument("--expect", help="text the answer must contain (default: PONG)")
    parser.add_argument(
        "--timeout", type=positive_seconds, metavar="S", help="deadline in seconds (default: 120)"
    )
    parser.add_argument(
        "--no-queue",
        action="store_true",
        help="report busy instead of queueing behind a running turn",
    )
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    add_server_arguments(parser)


def run(args: argparse.Namespace) -> int:
    async def main() -> int:
        async with supervised(args) as (session, supervisor):
            row = find_thread(supervisor.view(now()), args.thread)
            verdict = await run_checkin(
                session,
                row.id,
                text=args.text,
                expect=args.expect,
                timeout_s=args.timeout,
                queue_if_busy=not args.no_queue,
            )
            view = supervisor.view(now())
        findings = [f for f in view.findings if f.thread_id == row.id]
        if args.json:
            document = {
                "threadId": row.id,
                "verdict": verdict.verdict,
                "reason": verdict.reason,
                "latencySeconds": verdict.latency_s,
                "findings": [
                    {"kind": f.kind, "rule": f.rule, "reason": f.reason} for f in findings
                ],
            }
            print(json.dumps(document, indent=2))
        else:
            out = console()
            line = Text(verdict.verdict, style="bold green" if verdict.verdict == "answered" else "bold red")
            if verdict.latency_s is not None:
                line.append(f" in {verdict.latency_s:.1f}s")
            line.append(" · ")
            line.append(row.title or row.id)
            if verdict.reason:
                line.append(": ")
                line.append(verdict.reason)
            out.print(line)
            for finding in findings:
                out.print(finding_line(finding, view))
        return EXIT_OK if verdict.verdict == "answered" else EXIT_FLAGGED

    return run_async(main)
