"""`t3tui status [--json | --raw]`: connect, sync, print the tree and the findings, exit by
verdict. Findings read as stories with threads by name; `--raw` prints them as the detectors
wrote them (reason and `key=value` evidence, raw ids).

Exit 0 when nothing is flagged, 1 when something is (stuck, serialized, phantom, ...), 2 when
the server cannot be reached or refuses us.
"""

from __future__ import annotations

import argparse
import json

from t3tui.client.environments import Environment
from t3tui.headless.common import (
    CommandError,
    add_server_arguments,
    error,
    now,
    run_async,
    supervised,
)
from t3tui.headless.environments import connect_all, environments_of
from t3tui.headless.postmortem import add_t3db_arguments, postmortem_view
from t3tui.headless.proof import add_proof_arguments, apply_records, homes_from
from t3tui.headless.render import console, environments_report, print_lines, report
from t3tui.headless.replaying import check_within, open_replay, parse_at
from t3tui.model import DetectorConfig, Supervisor, SupervisorView
from t3tui.model.status_json import (
    EnvironmentStatus,
    environments_document,
    environments_exit_code,
    status_document,
)
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
    parser.add_argument(
        "--raw", action="store_true",
        help="findings as the detectors wrote them: reason and key=value evidence, raw ids",
    )
    parser.add_argument("--replay", metavar="FILE",
                        help="read a recording (t3tui record) instead of a server")
    add_server_arguments(parser)
    add_proof_arguments(parser)
    add_t3db_arguments(parser)


def replayed_view(args: argparse.Namespace) -> SupervisorView:
    """The view as of `--at` on the recording's clock: detectors run at that moment."""
    replay = open_replay(args.replay, lambda: Supervisor(config=DetectorConfig()))
    at = parse_at(args.at, replay.start, replay.end)
    replay.seek(check_within(at, replay.start, replay.end, args.at))
    return replay.sink.view(replay.now)


async def environments_status(args: argparse.Namespace, envs: list[Environment]) -> int:
    """`status --env ...`: every environment, one section (or JSON entry) each; an
    environment that cannot be reached is said on stderr and in its section, and the exit
    code is then 2 (docs/STATUS_JSON.md)."""
    async with connect_all(args, envs) as reached:
        at = now()
        statuses = [EnvironmentStatus(r.name, r.url,
                                      r.supervisor.view(at) if r.supervisor else None, r.error)
                    for r in reached]
    for status in statuses:
        if status.error is not None:
            error(f"environment {status.name}: {status.error}")
    if args.json:
        print(json.dumps(environments_document(statuses, at), indent=2, default=str))
    else:
        out = console()
        print_lines(out, environments_report(out, statuses, args.raw))
    return environments_exit_code(statuses)


def run(args: argparse.Namespace) -> int:
    async def main() -> int:
        if args.replay and args.t3_db is not None:
            raise CommandError("give either --replay or --t3-db, not both")
        if args.replay:
            view = replayed_view(args)
        elif args.t3_db is not None:
            view = await postmortem_view(args)
        else:
            if args.at:
                raise CommandError("--at needs --replay FILE or --t3-db")
            envs = environments_of(args)
            if envs:
                return await environments_status(args, envs)
            reader = RecordReader(homes_from(args))
            async with supervised(args) as (session, supervisor):
                await apply_records(supervisor, reader)
                view = supervisor.view(now())
                url = session.target.base_url
        if args.json:
            live = not args.replay and args.t3_db is None
            print(json.dumps(status_document(view, url if live else None), indent=2,
                             default=str))
        else:
            out = console()
            print_lines(out, report(out, view, args.raw))
        return view.exit_code

    return run_async(main)
