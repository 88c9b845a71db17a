"""`t3tui report`: a triage report on one thread, from a recording or a live server.

Markdown shaped like a good bug report (title from the finding, environment, lineage, a UTC
timeline with relative offsets, findings with rule, reason and evidence, what was done and
what the stream confirmed), or with `--json` the same content as one document. Without THREAD
it reports on the thread of the strongest finding. Exit 0 when written; 2 on a usage error,
a bad recording or a connection error (one line).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from t3tui.client.recording import RecordingError, read_recording
from t3tui.client.replay import Replay
from t3tui.client.secret import resolve_target
from t3tui.client.triage import TriageRun, snapshot_recording
from t3tui.headless.common import (
    EXIT_OK,
    CommandError,
    add_server_arguments,
    error,
    find_thread,
    run_async,
)
from t3tui.headless.postmortem import add_t3db_arguments, t3db_run, with_records
from t3tui.headless.proof import add_proof_arguments, apply_records, homes_from
from t3tui.headless.replaying import AT_HELP, check_within, parse_at
from t3tui.model import DetectorConfig, Supervisor, SupervisorView
from t3tui.model.labels import one_line
from t3tui.model.report import build_report
from t3tui.proof.records import RecordReader
from t3tui.words.report import render_markdown


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write a triage report (Markdown or JSON) on a thread",
        description=(
            "Write a bug-report-shaped triage report on THREAD (default: the thread of the "
            "strongest finding) from a recording (--replay FILE) or a live server "
            "(--url/--token). Exit 0 when written, 2 on a usage, recording or connection "
            "error."
        ),
    )
    parser.add_argument("thread", metavar="THREAD", nargs="?",
                        help="thread id, unique prefix, short id or exact title")
    parser.add_argument("--replay", metavar="FILE", help="a recording made by t3tui record")
    parser.add_argument("--at", metavar="TIME", help=f"with --replay or --t3-db: {AT_HELP}")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    parser.add_argument("--json", action="store_true", help="the report as one JSON document")
    add_server_arguments(parser)
    add_proof_arguments(parser)
    add_t3db_arguments(parser, at=False)


def pick_thread(view: SupervisorView, text: str | None) -> str:
    """THREAD as named, else the thread of the strongest finding."""
    if text is not None:
        return find_thread(view, text).id
    if not view.findings:
        raise CommandError("nothing is flagged at that moment: name a THREAD to report on")
    return view.findings[0].thread_id


def report_document(run: TriageRun, thread: str | None, at: float) -> dict[str, Any]:
    view = run.view_at(at)
    return build_report(run.gather(pick_thread(view, thread), at))


def write_report(doc: dict[str, Any], as_json: bool, output: str | None) -> None:
    text = json.dumps(doc, indent=2, default=str) + "\n" if as_json else render_markdown(doc)
    if output is None:
        sys.stdout.write(text)
        return
    try:
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise CommandError(f"cannot write {output}: {exc.strerror or exc}") from None
    print(f"t3tui: wrote the report on {one_line(doc['thread']['title'] or doc['thread']['id'])}"
          f" to {output}", file=sys.stderr)


def open_run(path: str, source: dict[str, Any] | None = None) -> TriageRun:
    try:
        recording = read_recording(path)
    except RecordingError as exc:
        raise CommandError(str(exc)) from None
    for warning in recording.warnings:
        error(f"warning: {warning}")
    return TriageRun(recording, DetectorConfig(), source)


async def live_document(args: argparse.Namespace) -> dict[str, Any]:
    """Connect, synchronize, and report from what that session received (snapshots: the
    timeline then rests on the server's own timestamps)."""
    target = resolve_target(getattr(args, "url", None), getattr(args, "token", None),
                            token_file=getattr(args, "token_file", None))
    recording = await snapshot_recording(target, args.connect_timeout)
    run = TriageRun(recording, DetectorConfig(), {"kind": "live", "url": target.base_url})
    # the provider records of the threads that session saw, read once, for every replay
    probe = Replay(recording, lambda: Supervisor(config=DetectorConfig()))
    probe.seek(recording.end)
    await apply_records(probe.sink, RecordReader(homes_from(args)))
    return report_document(with_records(run, probe.sink), args.thread, recording.end)


def run(args: argparse.Namespace) -> int:
    async def main() -> int:
        if args.replay and args.t3_db is not None:
            raise CommandError("give either --replay or --t3-db, not both")
        if args.t3_db is not None:
            run, at = await t3db_run(args)
            doc = report_document(run, args.thread, at)
        elif args.replay:
            run = open_run(args.replay)
            at = parse_at(args.at, run.recording.start, run.recording.end)
            at = check_within(at, run.recording.start, run.recording.end, args.at)
            doc = report_document(run, args.thread, at)
        else:
            if args.at:
                raise CommandError("--at needs --replay FILE or --t3-db")
            doc = await live_document(args)
        write_report(doc, args.json, args.output)
        return EXIT_OK

    return run_async(main)
