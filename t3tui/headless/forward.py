"""`t3tui forward CHILD [--yes] [--force] [--again]`: hand a child's result to its parent.

For a delegated child whose result will not reach its parent by itself (still pending or
claimed, its wake disposed, or its parent's cohort stopped), send the parent one user message
quoting the child's final answer with its title and task id. The exact text is printed first;
it is sent only once confirmed (a terminal prompt, or `--yes`), and once: a result the parent's
messages already carry (t3tui forwarded it before) is refused, saying when, unless `--again`.
Exit 0 when the parent's
stream shows the message, 1 when refused (by t3tui or the server) or not confirmed, 2 on
usage/connection errors or a THREAD (or parent) not found.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.text import Text

from t3tui import actions
from t3tui.actions import no_report
from t3tui.headless import common
from t3tui.headless.common import EXIT_FLAGGED, EXIT_OK, CommandError, OnThread, Refused
from t3tui.headless.proof import add_proof_arguments, apply_records, homes_from
from t3tui.headless.render import title_of
from t3tui.headless.thread_command import run_on_thread
from t3tui.model.forwarding import (
    forward_refusal,
    forward_text,
    forwarded_refusal,
    unheard_answer,
    unheard_text,
)
from t3tui.model.labels import short_id
from t3tui.proof.records import RecordReader


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = common.add_thread_command(
        subparsers, "forward",
        help="send a child's undelivered result to its parent (shows the text first)",
        description=(
            "Send THREAD's final answer to its parent as a user message quoting it, with the "
            "child's title and task id: for a result the parent was never told (pending, "
            "disposed, or its parent stopped). Prints the exact text, then asks; --yes sends "
            "without asking. A result already forwarded is not sent twice (--again sends it "
            "anyway). Exit 0: the parent's stream shows the message; 1: refused or not "
            "confirmed; 2: error."
        ),
    )
    parser.add_argument("--yes", action="store_true", help="send without asking")
    parser.add_argument("--force", action="store_true",
                        help="forward even though the parent was already told")
    parser.add_argument("--again", action="store_true",
                        help="forward even though t3tui already forwarded this result")
    common.add_timeout(parser, "wait S seconds for the parent's stream (default: 15)", 15.0)
    common.add_server_arguments(parser)
    add_proof_arguments(parser)


def run(args: argparse.Namespace) -> int:
    return run_on_thread(args, forward)


def confirmed(args: argparse.Namespace) -> bool:
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise Refused("not sent: confirm with --yes (the exact text is above)")
    try:
        answer = input("Send this to the parent? [y/N] ")
    except EOFError:  # Ctrl-D, or the terminal went away: that is a no, not a traceback
        print()
        return False
    return answer.strip().casefold() in ("y", "yes")


async def forward(on: OnThread, out: Console, args: argparse.Namespace) -> int:
    child = on.row
    why_not = forward_refusal(child, force=args.force)
    unheard = None
    if why_not is not None and child.task is not None:
        # T3 never received the answer: the provider's own record may have it (seed 004)
        await apply_records(on.supervisor, RecordReader(homes_from(args)))
        row = on.supervisor.row(child.id, common.now())
        wanted = on.supervisor.native_threads()
        records = {t: on.supervisor.provider_record(t) for t in wanted}
        unheard = unheard_answer(row, records) if row is not None else None
    if why_not is not None and unheard is None:
        raise Refused(why_not)
    parent = on.view.row(child.task.parent_thread_id) if child.task else None
    if parent is None:
        raise CommandError(f"{short_id(child.id)}'s parent is not on this server")
    on.port.open_thread(parent.id)  # for its messages, and to see ours land (ends with `on`)
    if not args.again:
        forwards = await actions.parent_forwards(on.port, parent.id, args.timeout)
        if forwards is None:
            raise CommandError(f"the parent's messages did not load within {args.timeout:g}s")
        if said := forwarded_refusal(child, forwards, "use --again to send it again"):
            raise Refused(said)
    text = unheard_text(child, *unheard) if unheard is not None else forward_text(child)
    out.print(Text("To ", style="bold").append(title_of(parent, parent.id)).append(":", style="bold"))
    out.print(Text(text))  # plain text: agent words are never markup
    if not confirmed(args):
        out.print("not sent")
        return EXIT_FLAGGED
    outcome = await actions.forward(on.port, child, text=text, report=no_report, again=args.again,
                                    clock=common.now, timeout=args.timeout)
    if outcome.kind == "unavailable":
        raise CommandError(f"{short_id(child.id)}'s parent is not on this server")
    if not common.answered(outcome, out):
        return EXIT_FLAGGED
    if not outcome.ok:
        out.print(Text(f"sent, but the parent's stream did not show it within {args.timeout:g}s",
                       style="yellow"))
        return EXIT_FLAGGED
    queued = " (queued after its active run)" if outcome.extra["queued"] else ""
    out.print(Text("forwarded to ", style="bold green").append(title_of(parent, parent.id))
              .append(queued))
    return EXIT_OK
