"""`--t3-db [PATH]`: rebuild the tree and findings from T3's own state database, as of `--at`.

The database is opened read-only (`t3tui.proof.t3db`); the provider records are read as of the
same moment, and the detectors run at that moment, so a post-mortem says what a live view
would have said then.
"""

from __future__ import annotations

import argparse
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
    homes = resolve_homes(t3_home=getattr(args, "t3_home", None))
    if homes.t3_logs is None:
        return None
    # t3_logs is <base>/userdata/logs/provider or <base>/logs/provider
    logs = homes.t3_logs
    base = logs.parent.parent
    return base.parent if base.name == "userdata" else base


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


async def postmortem_view(args: argparse.Namespace) -> SupervisorView:
    pm = await postmortem(args)
    return pm.supervisor.view(pm.at)
