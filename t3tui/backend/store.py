"""SQLite (WAL) event store: one global sequence, command receipts, group commit.

An append takes its sequences at once and is committed by the store's writer thread together
with every append made while the previous commit ran (`storewriter.GroupWriter`). Reads see
every append, committed or not; what may be shown to a client is gated on `written` (see
`storewriter`)."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from t3tui.backend.storewriter import GroupWriter, PendingReceipt, Row
from t3tui.protocol import DomainEvent, ProtocolError, decode_event
from t3tui.protocol.base import dumps

DB_FILE = "events.sqlite3"
log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    sequence   INTEGER PRIMARY KEY,
    command_id TEXT,
    thread_id  TEXT NOT NULL,
    event      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_thread ON events (thread_id, sequence);
CREATE TABLE IF NOT EXISTS receipts (
    command_id TEXT PRIMARY KEY,
    sequence   INTEGER NOT NULL,
    result     TEXT
);
"""


@dataclass(frozen=True)
class StoredEvent:
    """One stored event: `{sequence, commandId, event}` (protocol §9.1).

    `wire` is the event as written; `text` its JSON as stored, when known (the transport
    splices it into stream items instead of encoding the event again). The typed `event` is
    decoded on first use: the engine wrote the dict itself, and nobody on the live path reads
    the typed form.
    """

    sequence: int
    command_id: str | None
    wire: dict[str, Any] = field(compare=False)
    text: str | None = field(default=None, compare=False, repr=False)

    @cached_property
    def event(self) -> DomainEvent:
        return decode_event(self.wire)

    @property
    def thread_id(self) -> str:
        return str(self.wire["threadId"])

    def to_wire(self) -> dict[str, Any]:
        """The stored form `{sequence, commandId, event}`."""
        return {"sequence": self.sequence, "commandId": self.command_id, "event": self.wire}

    @classmethod
    def from_raw(cls, sequence: int, command_id: str | None, raw: dict[str, Any],
                 text: str | None = None) -> StoredEvent:
        """A stored event read back, decoded now: one that does not decode raises
        `ProtocolError` here, where the reader can skip it."""
        stored = cls(sequence, command_id, raw, text)
        stored.__dict__["event"] = decode_event(raw)
        return stored


def encode_event(raw: dict[str, Any]) -> tuple[str, str | None]:
    """An event's stored text, and the same text again when the wire can carry it as is
    (the protocol's compact JSON, spliced by the transport instead of encoding the event a
    second time). A lone surrogate (SQLite's UTF-8 cannot hold it) or a NaN is stored as
    before, in Python's escaped JSON, and left for the transport to encode (or refuse)."""
    try:
        text = dumps(raw)
        text.encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        return json.dumps(raw, separators=(",", ":")), None
    return text, text


@dataclass(frozen=True)
class Receipt:
    """What a command produced the first time it was applied."""

    command_id: str
    sequence: int
    result: dict[str, Any] | None


class StoreError(Exception):
    """The store could not read or write."""


def corrupt_row_message(path: Path, sequence: int, error: Exception) -> str:
    """Which file and row, what is wrong, and the ways out (nothing is changed for you)."""
    return (
        f"event store {path} is damaged: the event at sequence {sequence} (table events) is "
        f"not valid JSON ({error}). To recover: restore the file from a backup; or remove that "
        f"one row (its thread loses that event) with: sqlite3 '{path}' "
        f"'DELETE FROM events WHERE sequence = {sequence}'; or start with a new --data-dir"
    )


class EventStore:
    """Append-only event log with command receipts, in `<data_dir>/events.sqlite3`."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            # Created private (it holds every prompt and message), whatever the umask.
            if not self.path.exists():
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
            self._db = sqlite3.connect(str(self.path), isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # SQLite gives its -wal and -shm files the database file's mode.
            # WAL + NORMAL survives a process crash; only a power loss can drop the last commit
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open event store {self.path}: {exc}") from exc
        row = self._db.execute("SELECT COALESCE(MAX(sequence), 0) FROM events").fetchone()
        self._head = int(row[0])
        self.skipped: set[int] = set()  # sequences of stored events reported as unusable
        self.writer = GroupWriter(self.path, self._head)

    @classmethod
    def open(cls, data_dir: Path | str) -> EventStore:
        return cls(Path(data_dir) / DB_FILE)

    @property
    def head(self) -> int:
        """The last global sequence (0 when empty)."""
        return self._head

    @property
    def ticket(self) -> int:
        """The ticket of the last append (see `storewriter`)."""
        return self.writer.ticket

    @property
    def written(self) -> int:
        """The last append's ticket that is committed (every earlier one is too)."""
        return self.writer.written

    def append(
        self,
        command_id: str | None,
        events: Sequence[dict[str, Any]],
        result: dict[str, Any] | None = None,
    ) -> list[StoredEvent]:
        """Store `events` (wire dicts) and the command's receipt, committed together (with
        whatever else the writer's next group holds). Raises `StoreError` when the command
        already has a receipt or the store can no longer write."""
        if self.writer.failed is not None:
            raise StoreError(self.writer.failed)
        if command_id is not None and self.receipt(command_id) is not None:
            raise StoreError(f"cannot append to event store: command {command_id} is stored")
        rows: list[Row] = []
        texts = []
        seq = self._head
        for raw in events:
            seq += 1
            stored_text, wire_text = encode_event(raw)
            rows.append((seq, command_id, raw["threadId"], stored_text, raw))
            texts.append(wire_text)
        receipt = None if command_id is None else PendingReceipt(
            command_id, seq, result, None if result is None else json.dumps(result))
        self.writer.submit(rows, receipt)
        self._head = seq
        return [
            StoredEvent(row[0], command_id, raw, text)
            for row, raw, text in zip(rows, events, texts, strict=True)
        ]

    def receipt(self, command_id: str) -> Receipt | None:
        pending = self.writer.pending_receipt(command_id)
        if pending is not None:
            return Receipt(command_id, pending.sequence, pending.result)
        row = self._db.execute(
            "SELECT sequence, result FROM receipts WHERE command_id = ?", (command_id,)
        ).fetchone()
        if row is None:
            return None
        return Receipt(command_id, int(row[0]), None if row[1] is None else json.loads(row[1]))

    def events_after(
        self, sequence: int, limit: int | None = None, thread_id: str | None = None
    ) -> list[StoredEvent]:
        """Events with a sequence above `sequence`, oldest first. An event that no longer
        decodes (written by another version, or by hand) is skipped and reported once: one
        bad row must not end every subscription that replays past it."""
        out = []
        for s, c, raw in self.raw_after(sequence, limit, thread_id):
            try:
                out.append(StoredEvent.from_raw(s, c, raw))
            except ProtocolError as exc:
                self.report_bad(s, exc.message)
        return out

    def report_bad(self, sequence: int, why: str) -> None:
        """Log a stored event that is skipped, once per row."""
        if sequence in self.skipped:
            return
        self.skipped.add(sequence)
        log.warning("event store %s: skipped event %d, which cannot be used: %s", self.path,
                    sequence, why)

    def raw_after(
        self, sequence: int, limit: int | None = None, thread_id: str | None = None
    ) -> Iterator[tuple[int, str | None, dict[str, Any]]]:
        """Like `events_after` but yields undecoded wire dicts (for fast replay)."""
        durable, pending = self.writer.pending()
        left = limit
        sql = "SELECT sequence, command_id, event FROM events WHERE sequence > ? AND sequence <= ?"
        args: list[Any] = [sequence, durable]
        if thread_id is not None:
            sql += " AND thread_id = ?"
            args.append(thread_id)
        sql += " ORDER BY sequence"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        for seq, command_id, text in self._db.execute(sql, args):
            try:
                raw = json.loads(text)
                if not isinstance(raw, dict):
                    raise ValueError(f"a JSON {type(raw).__name__}, not an event object")
            except (ValueError, TypeError) as exc:
                raise StoreError(corrupt_row_message(self.path, int(seq), exc)) from None
            if left is not None:
                left -= 1
            yield int(seq), command_id, raw
        for seq, command_id, row_thread, _, raw in pending:
            if left is not None and left <= 0:
                return
            if seq > sequence and (thread_id is None or row_thread == thread_id):
                if left is not None:
                    left -= 1
                yield seq, command_id, raw

    def close(self) -> None:
        """Commit every append, then close."""
        self.writer.close()
        self._db.close()
