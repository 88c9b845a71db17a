"""`--t3-db [PATH]`: rebuild the tree and findings from T3's own state database, as of `--at`.

The database is opened read-only (`t3tui.proof.t3db`); the provider records are read as of the
same moment, and the detectors run at that moment, so a post-mortem says what a live view
would have said then.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from t3tui.headless.common import CommandError
from t3tui.headless.proof import homes_from
from t3tui.headless.replaying import AT_HELP, parse_at
from t3tui.model import DetectorConfig, Supervisor, SupervisorView
from t3tui.proof.homes import resolve_homes
from t3tui.proof.records import RecordReader
from t3tui.proof.t3db import T3Db, T3DbError, find_db, frames


def add_t3db_arguments(parser: argparse.ArgumentParser, *, at: bool = True) -> None:
    group = parser.add_argument_group(
        "post-mortem from T3's own database",
        "read T3's SQLite state read-only instead of connecting to a server")
    group.add_argument(
        "--t3-db", nargs="?", const="", default=None, metavar="PATH",
        help="statev2.sqlite / state.sqlite, or a dir holding one (default: under --t3-home, "
             "$T3CODE_HOME or ~/.t3: userdata/)")
    group.add_argument("--copy", action="store_true",
                       help="with --t3-db: copy the database and its WAL first, read the copy")
    if at:
        group.add_argument("--at", metavar="TIME", help=f"with --replay or --t3-db: {AT_HELP}")


@dataclass
class PostMortem:
    supervisor: Supervisor
    at: datetime
    path: Path
    layout: str
    skipped: int


def _t3_home(args: argparse.Namespace) -> Path | None:
    return resolve_homes(t3_home=getattr(args, "t3_home", None)).t3_base


def load_frames_at(args: argparse.Namespace) -> tuple[list[dict[str, Any]], datetime, Path, str, int]:
    """The database's frames up to `--at` (parsed against its first and last event)."""
    try:
        path = find_db(args.t3_db, _t3_home(args))
        with T3Db(path, copy=getattr(args, "copy", False)) as db:
            _, first, last = frames(db)  # the span, for --at
            if first is None or last is None:
                raise CommandError(f"{path}: no V2 events to rebuild from")
            text = getattr(args, "at", None)
            # the state stands after its last event: the default moment is now
            at = parse_at(text, first, last) if text is not None else datetime.now(UTC).timestamp()
            if at < first:
                raise CommandError(
                    f"--at {text!r} is before the database's first event "
                    f"({datetime.fromtimestamp(first, UTC):%Y-%m-%d %H:%M:%S} UTC)")
            moment = datetime.fromtimestamp(at, UTC)
            found, _, _ = frames(db, moment)
            return found, moment, path, db.layout.describe(), db.skipped
    except T3DbError as exc:
        raise CommandError(str(exc)) from None


async def postmortem(args: argparse.Namespace, config: DetectorConfig | None = None) -> PostMortem:
    from t3tui.proof.feed import apply_records

    found, at, path, layout, skipped = load_frames_at(args)
    supervisor = Supervisor(config=config or DetectorConfig())
    feed_frames(supervisor, found)
    reader = RecordReader(homes_from(args), until=at, final=True)
    await apply_records(supervisor, reader)
    return PostMortem(supervisor, at, path, layout, skipped)


def feed_frames(supervisor: Supervisor, found: list[dict[str, Any]]) -> None:
    for frame in found:
        if frame["stream"] == "shell":
            supervisor.apply_shell(frame["item"])
        else:
            try:
                supervisor.apply_thread(frame["threadId"], frame["item"])
            except ValueError:
                continue  # a row the model refuses, as live: skipped


def write_recording(found: list[dict[str, Any]], path: Path, source: Path,
                    moment: datetime | None = None) -> None:
    """The frames as a t3tui recording (plain NDJSON), so `report` reads a T3 database the
    way it reads a recording: a shell subscription, then one thread subscription per thread
    at its first event, each event at its own time."""
    from t3tui.client.recorder import FORMAT_VERSION, HEADER_KEY, stamp
    from t3tui.protocol.methods import SUBSCRIBE_SHELL, SUBSCRIBE_THREAD

    times = [f["at"] for f in found if f.get("at") is not None]
    start = times[0] if times else datetime.now(UTC).timestamp()
    out = [json.dumps({HEADER_KEY: FORMAT_VERSION, "startedAt": stamp(start),
                       "url": f"t3-db:{source}", "server": {"label": "T3 state database"},
                       "protocolVersion": 2})]

    def line(at: float, key: str, body: Any) -> None:
        out.append(json.dumps({"t": stamp(at), key: body}, separators=(",", ":")))

    def chunk(request: str, values: list[Any]) -> dict[str, Any]:
        return {"_tag": "Chunk", "requestId": request, "values": values}

    def request(request: str, tag: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"_tag": "Request", "id": request, "tag": tag, "payload": payload, "headers": []}

    out.append(json.dumps({"t": stamp(start), "connection": "open", "server": {}}))
    line(start, "out", request("1", SUBSCRIBE_SHELL, {}))
    line(start, "in", chunk("1", [f["item"] for f in found if f["stream"] == "shell"]))
    ids: dict[str, str] = {}
    for frame in found:
        if frame["stream"] != "thread" or frame["item"].get("kind") == "synchronized":
            continue
        at, thread_id = frame.get("at") or start, frame["threadId"]
        if thread_id not in ids:
            ids[thread_id] = str(len(ids) + 2)
            line(at, "out", request(ids[thread_id], SUBSCRIBE_THREAD, {"threadId": thread_id}))
            line(at, "in", chunk(ids[thread_id], [frame["item"], {"kind": "synchronized"}]))
        else:
            line(at, "in", chunk(ids[thread_id], [frame["item"]]))
    if moment is not None and moment.timestamp() > (times[-1] if times else start):
        # the state stands after its last event: the recording lasts to the report's moment
        out.append(json.dumps({"t": stamp(moment.timestamp()), "note": "t3-db-moment"}))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out) + "\n")


async def postmortem_view(args: argparse.Namespace) -> SupervisorView:
    pm = await postmortem(args)
    return pm.supervisor.view(pm.at)


async def t3db_run(args: argparse.Namespace) -> tuple[Any, float]:
    """A `TriageRun` over the database (as a recording) and the report's moment (epoch):
    `report --t3-db` goes through the same path as `report --replay`. The provider records
    and protocol logs, read as of that moment, are handed to every supervisor it makes."""
    import shutil
    import tempfile

    from t3tui.client.recording import RecordingError, read_recording
    from t3tui.client.triage import TriageRun
    from t3tui.proof.feed import apply_records

    found, at, path, _layout, _skipped = load_frames_at(args)
    probe = Supervisor(config=DetectorConfig())
    feed_frames(probe, found)
    await apply_records(probe, RecordReader(homes_from(args), until=at, final=True))
    folder = tempfile.mkdtemp(prefix="t3tui-t3db-")
    try:
        rec_path = Path(folder) / "t3db.ndjson"
        write_recording(found, rec_path, path, at)
        try:
            recording = read_recording(rec_path)
        except RecordingError as exc:
            raise CommandError(str(exc)) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    run = with_records(TriageRun(recording, DetectorConfig(), {"kind": "t3-db", "path": str(path)}),
                       probe)
    return run, at.timestamp()


def with_records(run: Any, probe: Supervisor) -> Any:
    """`run` (a TriageRun) whose every supervisor starts with the provider records and
    protocol logs `probe` holds (read once, as of the report's moment)."""
    wanted = probe.native_threads()
    records = {t: probe.provider_record(t) for t in wanted}
    logs = {t: probe.protocol_log(t) for t in wanted}
    plain = run.new_sink

    def new_sink() -> Supervisor:
        sup = plain()
        for thread_id in wanted:
            sup.set_provider_record(thread_id, records[thread_id])
            sup.set_protocol_log(thread_id, logs[thread_id])
        return sup

    run.new_sink = new_sink
    return run
