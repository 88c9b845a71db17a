"""`t3tui dispose CHILD` / `t3tui acknowledge CHILD`: settle a child's completion delivery.

`dispose` sends `delegated_task.completion-delivery.dispose` ("do not wake the parent for this
task"); `acknowledge` sends `...completion-delivery.acknowledge` ("the parent has the result",
e.g. after `t3tui forward`). The server decides; its refusal is printed verbatim. Exit 0 when
the stream shows the new delivery state, 1 when refused or not confirmed, 2 on errors.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from t3tui import actions
from t3tui.actions import no_report
from t3tui.headless import common
from t3tui.headless.common import EXIT_FLAGGED, EXIT_OK, OnThread, Refused
from t3tui.headless.render import title_of
from t3tui.headless.thread_command import run_on_thread
from t3tui.model.forwarding import delivery_refusal

WHAT = {
    "dispose": ("disposed", "don't wake the parent for CHILD's task: its completion delivery "
                            "becomes `disposed`"),
    "acknowledge": ("acknowledged", "mark CHILD's result as seen by its parent (after "
                                    "forwarding it, say): its delivery becomes `acknowledged`"),
}


def register_action(action: str) -> Callable[[argparse._SubParsersAction], None]:
    _state, help_text = WHAT[action]

    def register(subparsers: argparse._SubParsersAction) -> None:
        parser = common.add_thread_command(
            subparsers, action, help=help_text.replace("CHILD's", "a child's"),
            description=(f"{help_text[0].upper()}{help_text[1:]}. The server's refusal is shown "
                         "verbatim. Exit 0: the stream shows it; 1: refused or not confirmed; "
                         "2: error."))
        common.add_timeout(parser, "wait S seconds for the stream (default: 15)", 15.0)
        common.add_server_arguments(parser)

    return register


def run_action(action: str) -> Callable[[argparse.Namespace], int]:
    async def body(on: OnThread, out: Console, args: argparse.Namespace) -> int:
        return await settle_delivery(on, out, args, action)

    return lambda args: run_on_thread(args, body)


async def settle_delivery(on: OnThread, out: Console, args: argparse.Namespace, action: str) -> int:
    child = on.row
    if child.task is None:
        raise Refused(delivery_refusal(child, action) or "not a delegated child")
    # no second-guessing here: the server decides, and its refusal is printed verbatim
    state = WHAT[action][0]
    outcome = await actions.settle_delivery(on.port, child, action, report=no_report,
                                            clock=common.now, timeout=args.timeout)
    if not common.answered(outcome, out):
        return EXIT_FLAGGED
    if not outcome.ok:
        out.print(Text(f"accepted, but the stream did not show it {state} within "
                       f"{args.timeout:g}s", style="yellow"))
        return EXIT_FLAGGED
    out.print(Text(f"delivery {state} · ", style="bold green").append(title_of(child, child.id)))
    return EXIT_OK
