"""T3's own SQLite state, read-only, as of any moment (post-mortem).

Opened with `mode=ro` (`immutable` only when no `-wal`/`-shm` exists, i.e. no server has it
open: a live server's WAL must be seen, and nothing may be created next to T3's files) and a busy
timeout; events are read in batches, each its own short read transaction, so a live server's
checkpoints are never held up. `copy=True` snapshots the database and its `-wal` into a private
temporary directory first. The layout is detected by tables and columns, not by a build
number: V2 events live in `orchestration_events` rows with `application_event_version = 2`
(since migration 55) or, on older V2 builds, in `orchestration_v2_events`. A thread whose
events were compacted away is seeded from its projection rows. An unknown layout is a
`T3DbError` naming what is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from t3tui.model.wire import ts

DB_NAMES = ("statev2.sqlite", "state.sqlite")
BATCH = 2000
EVENTS = "orchestration_events"
EVENTS_V2 = "orchestration_v2_events"
NEED_EVENTS = ("sequence", "event_id", "stream_id", "event_type", "occurred_at", "payload_json",
               "application_event_version")
NEED_EVENTS_V2 = ("sequence", "event_id", "thread_id", "event_type", "occurred_at", "payload_json")
# projection table -> (thread snapshot key, id column)
PROJECTIONS = {
    "orchestration_v2_projection_runs": "runs",
    "orchestration_v2_projection_run_attempts": "attempts",
    "orchestration_v2_projection_provider_threads": "providerThreads",
    "orchestration_v2_projection_provider_turns": "providerTurns",
    "orchestration_v2_projection_provider_sessions": "providerSessions",
    "orchestration_v2_projection_runtime_requests": "runtimeRequests",
    "orchestration_v2_projection_messages": "messages",
    "orchestration_v2_projection_subagents": "subagents",
    "orchestration_v2_projection_turn_items": "turnItems",
}
THREADS = "orchestration_v2_projection_threads"


class T3DbError(Exception):
    """The state cannot be found, opened or understood (one line for the user)."""


def find_db(given: str | None, t3_home: Path | None) -> Path:
    """`--t3-db PATH` (a file, or a dir holding one), else the state under T3's home."""
    if given:
        path = Path(given).expanduser()
        if path.is_file():
            return path
        if not path.exists():
            raise T3DbError(f"no T3 state at {path}")
        roots = [path, path / "userdata"]
    else:
        if t3_home is None:
            raise T3DbError("no T3 home: give --t3-db PATH")
        roots = [t3_home / "userdata", t3_home / "dev", t3_home]
    for root in roots:
        for name in DB_NAMES:
            if (root / name).is_file():
                return root / name
    names = " or ".join(DB_NAMES)
    raise T3DbError(f"no T3 state database ({names}) under {', '.join(map(str, roots))}")


@dataclass(frozen=True)
class Layout:
    events: str              # the table the V2 events are read from
    thread_column: str
    has_meta: bool           # metadata_json (runId, nodeId)
    projections: tuple[str, ...]

    def describe(self) -> str:
        where = f"{self.events} (application_event_version = 2)" if self.events == EVENTS \
            else self.events
        return f"events from {where}; projections: {len(self.projections)} tables"


def detect_layout(conn: sqlite3.Connection, name: str) -> Layout:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    def columns(table: str) -> set[str]:
        return {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}

    projections = tuple(t for t in (THREADS, *PROJECTIONS) if t in tables)
    missing: list[str] = []
    if EVENTS in tables:
        cols = columns(EVENTS)
        lacking = [c for c in NEED_EVENTS if c not in cols]
        if not lacking:
            return Layout(EVENTS, "stream_id", "metadata_json" in cols, projections)
        missing.append(f"{EVENTS} lacks {', '.join(lacking)}")
    if EVENTS_V2 in tables:
        cols = columns(EVENTS_V2)
        lacking = [c for c in NEED_EVENTS_V2 if c not in cols]
        if not lacking:
            return Layout(EVENTS_V2, "thread_id", False, projections)
        missing.append(f"{EVENTS_V2} lacks {', '.join(lacking)}")
    if not missing:
        missing.append(f"no {EVENTS} (with application_event_version) or {EVENTS_V2} table")
    shown = ", ".join(sorted(tables)[:8]) + (" …" if len(tables) > 8 else "") or "none"
    raise T3DbError(f"{name}: not a T3 V2 state layout t3tui knows: {'; '.join(missing)} "
                    f"(tables: {shown})")


class T3Db:
    """One T3 state database, open read-only (use as a context manager)."""

    def __init__(self, path: Path, *, copy: bool = False) -> None:
        self.source = path
        self._tmp: str | None = None
        if copy:
            self._tmp = tempfile.mkdtemp(prefix="t3tui-t3db-")
            os.chmod(self._tmp, 0o700)
            try:
                for suffix in ("", "-wal"):
                    if Path(f"{path}{suffix}").exists():
                        shutil.copyfile(f"{path}{suffix}", Path(self._tmp) / f"{path.name}{suffix}")
            except OSError as exc:
                self.close()
                raise T3DbError(f"cannot copy {path}: {exc.strerror or exc}") from None
            path = Path(self._tmp) / path.name
        self.path = path
        uri = f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro"
        if not Path(f"{path}-wal").exists() and not Path(f"{path}-shm").exists():
            # No WAL and no shared-memory file: no server has it open (a running T3 in WAL
            # mode keeps both). A plain read-only open would create them next to T3's files;
            # immutable reads the file as it is and creates nothing.
            uri += "&immutable=1"
        try:
            self._conn = sqlite3.connect(uri, uri=True, isolation_level=None,
                                         check_same_thread=False)
            self._conn.execute("PRAGMA busy_timeout=5000")
            self._conn.execute("PRAGMA query_only=ON")
            self.layout = detect_layout(self._conn, str(self.source))
        except sqlite3.Error as exc:
            self.close()
            hint = "" if copy else " (try --copy)"
            raise T3DbError(f"cannot read {self.source}: {exc}{hint}") from None

    def __enter__(self) -> T3Db:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()
            self._conn = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._conn.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise T3DbError(f"cannot read {self.source}: {exc}") from None

    def events(self, until: datetime | None = None) -> Iterator[tuple[int, str, dict[str, Any]]]:
        """(sequence, thread id, wire event) in sequence order, up to `until`; a row that
        does not decode is skipped and counted in `self.skipped`."""
        lay = self.layout
        cols = f"sequence, event_id, {lay.thread_column}, event_type, occurred_at, payload_json"
        cols += ", metadata_json" if lay.has_meta else ", NULL"
        where = "application_event_version = 2 AND aggregate_kind = 'thread' AND " \
            if lay.events == EVENTS else ""
        self.skipped = 0
        after = -1
        while True:  # one short read transaction per batch
            rows = self._query(f"SELECT {cols} FROM {lay.events} WHERE {where}sequence > ? "
                               f"ORDER BY sequence LIMIT {BATCH}", (after,))
            for seq, event_id, thread_id, kind, occurred, payload, meta in rows:
                after = seq
                at = ts(occurred)
                if until is not None and at is not None and at > until:
                    return
                try:
                    body = json.loads(payload)
                    extra = json.loads(meta) if meta else {}
                except (TypeError, ValueError):
                    self.skipped += 1
                    continue
                if not isinstance(body, dict) or not isinstance(thread_id, str):
                    self.skipped += 1
                    continue
                event = {"id": str(event_id), "threadId": thread_id, "occurredAt": occurred,
                         "type": str(kind), "payload": body}
                if isinstance(extra, dict):
                    event.update({k: extra[k] for k in ("runId", "nodeId") if extra.get(k)})
                yield int(seq), thread_id, event
            if len(rows) < BATCH:
                return

    def projection(self, thread_id: str) -> dict[str, Any] | None:
        """A thread's projection rows as a thread snapshot (for compacted event logs)."""
        lay = self.layout
        if THREADS not in lay.projections:
            return None
        row = self._query(f"SELECT payload_json FROM {THREADS} WHERE thread_id = ?", (thread_id,))
        if not row:
            return None
        snap: dict[str, Any] = {"thread": _json(row[0][0])}
        for table, key in PROJECTIONS.items():
            if table in lay.projections:
                rows = self._query(f"SELECT payload_json FROM {table} WHERE thread_id = ?",
                                   (thread_id,))
                snap[key] = [v for (p,) in rows if isinstance(v := _json(p), dict)]
        return snap if isinstance(snap["thread"], dict) else None

    def thread_ids(self) -> list[str]:
        if THREADS not in self.layout.projections:
            return []
        return [r[0] for r in self._query(f"SELECT thread_id FROM {THREADS}")]


def _json(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def frames(db: T3Db, until: datetime | None = None) -> tuple[list[dict[str, Any]], float | None,
                                                            float | None]:
    """The state as stream frames (the `FrameSource` format), up to `until`: an empty shell
    snapshot, then per thread its events (after its projection, when its creation was
    compacted away), each thread marked synchronized. Also the first and last event times.
    Thread frames carry `at`, their event's epoch time."""
    out: list[dict[str, Any]] = [
        {"stream": "shell", "item": {"kind": "snapshot", "snapshot": {
            "snapshotSequence": 0, "projects": [], "threads": [], "archivedThreads": []}}},
        {"stream": "shell", "item": {"kind": "synchronized"}},
    ]
    seen: set[str] = set()
    created: set[str] = set()
    body: list[dict[str, Any]] = []
    first = last = None
    for seq, thread_id, event in db.events(until):
        at = ts(event["occurredAt"])
        if at is not None:
            first = at.timestamp() if first is None else first
            last = at.timestamp()
        if thread_id not in seen:
            seen.add(thread_id)
            if event["type"] == "thread.created":
                created.add(thread_id)
            else:
                snap = db.projection(thread_id)
                if snap is not None:  # its beginning was compacted: start from its projection
                    body.append({"stream": "thread", "threadId": thread_id, "at": last, "item": {
                        "kind": "snapshot", "snapshotSequence": seq - 1, "projection": snap}})
        body.append({"stream": "thread", "threadId": thread_id, "at": last,
                     "item": {"kind": "event", "sequence": seq, "event": event}})
    for thread_id in sorted(seen):
        body.append({"stream": "thread", "threadId": thread_id, "item": {"kind": "synchronized"}})
    return out + body, first, last
