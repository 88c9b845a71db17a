"""`t3tui status [--json]`: connect, sync, print the tree and the findings, exit by verdict.

Exit 0 when nothing is flagged, 1 when something is (stuck, serialized, phantom, ...), 2 when
the server cannot be reached or refuses us.
"""

from __future__ import annotations

import argparse
import json

from t3tui.headless.common import (
    CommandError,
    add_server_arguments,
    now,
    run_async,
    supervised,
)
from t3tui.headless.proof import add_proof_arguments, apply_records, homes_from
from t3tui.headless.render import console, print_lines, report
from t3tui.headless.replaying import AT_HELP, check_within, open_replay, parse_at
from t3tui.model import DetectorConfig, Supervisor, SupervisorView
from t3tui.proof.records import RecordReader


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "status",
        help="print the thread tree with states and findings, then exit",
        description=(
            "Connect, synchronize, print every thread with its state and every finding. "
            "Exit 0: nothing flagged; 1: something flagged; 2: connection or auth error."
        ),
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON document (see docs/STATUS_JSON.md)"
    )
    parser.add_argument("--replay", metavar="FILE",
                        help="read a recording (t3tui record) instead of a server")
    parser.add_argument("--at", metavar="TIME", help=f"with --replay: {AT_HELP}")
    add_server_arguments(parser)
    add_proof_arguments(parser)


def replayed_view(args: argparse.Namespace) -> SupervisorView:
    """The view as of `--at` on the recording's clock: detectors run at that moment."""
    replay = open_replay(args.replay, lambda: Supervisor(config=DetectorConfig()))
    at = parse_at(args.at, replay.start, replay.end)
    check_within(at, replay.start, replay.end, args.at)
    replay.seek(at)
    return replay.sink.view(replay.now)


def run(args: argparse.Namespace) -> int:
    async def main() -> int:
        if args.replay:
            view = replayed_view(args)
        else:
            if args.at:
                raise CommandError("--at needs --replay FILE")
            reader = RecordReader(homes_from(args))
            async with supervised(args) as (_session, supervisor):
                await apply_records(supervisor, reader)
                view = supervisor.view(now())
        if args.json:
            print(json.dumps(view.to_status_json(), indent=2, default=str))
        else:
            out = console()
            print_lines(out, report(out, view))
        return view.exit_code

    return run_async(main)
