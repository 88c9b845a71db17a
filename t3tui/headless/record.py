"""`t3tui record -o FILE`: keep every frame of a supervised session in a recording.

The session is the one `status` and the app hold (the shell and every thread of interest),
kept until Ctrl-C or `--duration`, reconnecting as the app does; the file shows each gap and
resume. It reads the providers' own records as the app does (`--codex-home`, ...) and notes
what they say as it changes, so a replay shows `provider_finished_unheard` too. Replay it with
`t3tui --replay FILE`, `t3tui status --replay FILE --at TIME` or `t3tui report --replay FILE`.
Exit 0 once stopped, 2 when the server cannot be reached or the file cannot be written.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from t3tui.client.errors import ClientError
from t3tui.client.state import Failed
from t3tui.headless.common import (
    EXIT_OK,
    add_server_arguments,
    positive_seconds,
    recording_to,
    run_async,
    supervised,
)
from t3tui.headless.proof import add_proof_arguments, homes_from
from t3tui.proof.feed import follow_records
from t3tui.proof.records import RecordReader


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "record",
        help="record every frame of a session to a file, until Ctrl-C",
        description=(
            "Connect, synchronize, and keep every server frame received and every command "
            "sent, with local receive times, as gzip-compressed NDJSON (docs/RECORDING.md). "
            "No token or ticket is ever written. Exit 0 when stopped, 2 on a connection error "
            "or when FILE exists."
        ),
    )
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the recording to create (never overwritten), e.g. run.ndjson.gz")
    parser.add_argument("--duration", type=positive_seconds, metavar="S",
                        help="stop after S seconds")
    add_server_arguments(parser)
    add_proof_arguments(parser)


def run(args: argparse.Namespace) -> int:
    async def main() -> int:
        with recording_to(args.output, args) as recorder:
            assert recorder is not None
            try:
                async with supervised(args, recorder=recorder) as (session, supervisor):
                    print(f"t3tui: recording {session.target.base_url} to {args.output} "
                          "(Ctrl-C stops)", file=sys.stderr, flush=True)
                    proof = asyncio.create_task(follow_records(
                        supervisor, RecordReader(homes_from(args)), note=session.note))
                    failed = asyncio.ensure_future(
                        session.state.wait_for(lambda s: isinstance(s, Failed)))
                    try:
                        async with asyncio.timeout(args.duration):
                            await asyncio.shield(failed)
                    except TimeoutError:
                        pass
                    finally:
                        failed.cancel()
                        proof.cancel()
                        await asyncio.gather(proof, return_exceptions=True)
                    if isinstance(session.state.value, Failed):
                        raise ClientError(session.state.value.reason)
            finally:
                stats = recorder.stats
                if stats.connections:
                    print(f"t3tui: recorded {stats.frames_in} frames received and "
                          f"{stats.frames_out} sent over {stats.connections} connection(s) "
                          f"to {args.output}", file=sys.stderr)
        return EXIT_OK

    try:
        return run_async(main)
    except KeyboardInterrupt:
        return EXIT_OK
