"""Group commit for the event store: one writer thread, one transaction per group of appends.

`EventStore.append` hands its rows to `GroupWriter.submit` and returns at once; the writer
thread commits everything submitted while its previous commit ran in one SQLite transaction.
Each submission gets a ticket (1, 2, ...); `written` is the last ticket committed, in order.
Nothing here decides what may be shown: the transport writes a frame only once every ticket
issued before the frame was made is written (`RpcConnection`'s gate, `Core.written`), so no
client sees an event, a snapshot or a command's answer before it is committed, and a crash
loses only what no client was shown.

SQLite runs without the GIL while it writes, so the commit (and WAL checkpoints, which copy
pages and fsync) overlaps the event loop instead of stalling it.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# (sequence, command id, thread id, stored JSON text, the event dict)
Row = tuple[int, str | None, str, str, dict[str, Any]]


@dataclass(frozen=True)
class PendingReceipt:
    command_id: str
    sequence: int
    result: dict[str, Any] | None
    text: str | None  # the result as stored


@dataclass(frozen=True)
class _Submission:
    ticket: int
    rows: list[Row]
    receipt: PendingReceipt | None


class GroupWriter:
    """The writer thread of one store file."""

    def __init__(self, path: Path, durable: int) -> None:
        self.path = path
        # called from the writer thread with the last written ticket, or None when it failed
        self.on_written: Callable[[int | None], None] | None = None
        self.failed: str | None = None
        self._cond = threading.Condition()
        self._ticket = 0
        self._written = 0
        self._durable = durable  # the last committed event sequence
        self._queue: list[_Submission] = []
        self._inflight: list[_Submission] = []
        self._receipts: dict[str, PendingReceipt] = {}
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="t3tui-event-store", daemon=True)
        self._thread.start()

    @property
    def ticket(self) -> int:
        """The last ticket issued."""
        return self._ticket

    @property
    def written(self) -> int:
        """The last ticket committed (every earlier one is committed too)."""
        return self._written

    def submit(self, rows: list[Row], receipt: PendingReceipt | None) -> int:
        with self._cond:
            self._ticket += 1
            self._queue.append(_Submission(self._ticket, rows, receipt))
            if receipt is not None:
                self._receipts[receipt.command_id] = receipt
            self._cond.notify()
            return self._ticket

    def pending(self) -> tuple[int, list[Row]]:
        """The last committed event sequence and, consistently with it, the rows after it
        that are submitted but not committed yet."""
        with self._cond:
            subs = self._inflight + self._queue
            return self._durable, [row for sub in subs for row in sub.rows]

    def pending_receipt(self, command_id: str) -> PendingReceipt | None:
        with self._cond:
            return self._receipts.get(command_id)

    def close(self) -> None:
        """Commit what is submitted, then stop the thread."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join()

    def _run(self) -> None:
        try:
            # a reader or tool holding SQLite's lock for a moment must not fail the store
            db = sqlite3.connect(str(self.path), isolation_level=None, timeout=30.0)
            # WAL + NORMAL: a committed group survives a process crash; only a power loss can
            # drop the last commits (as before group commit)
            db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error as exc:
            self._fail(f"cannot open event store {self.path} for writing: {exc}")
            return
        try:
            while (group := self._take()) is not None:
                try:
                    self._commit(db, group)
                except sqlite3.Error as exc:
                    self._fail(f"cannot append to event store: {exc}")
                    return
                self._done(group)
        finally:
            db.close()

    def _take(self) -> list[_Submission] | None:
        with self._cond:
            while not self._queue and not self._closing:
                self._cond.wait()
            if not self._queue:
                return None
            self._inflight, self._queue = self._queue, []
            return self._inflight

    @staticmethod
    def _commit(db: sqlite3.Connection, group: list[_Submission]) -> None:
        rows = [row[:4] for sub in group for row in sub.rows]
        receipts = [(r.command_id, r.sequence, r.text) for sub in group
                    if (r := sub.receipt) is not None]
        db.execute("BEGIN IMMEDIATE")
        try:
            if rows:
                db.executemany(
                    "INSERT INTO events (sequence, command_id, thread_id, event) VALUES (?,?,?,?)",
                    rows)
            if receipts:
                db.executemany(
                    "INSERT INTO receipts (command_id, sequence, result) VALUES (?,?,?)",
                    receipts)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _done(self, group: list[_Submission]) -> None:
        with self._cond:
            for sub in group:
                if sub.rows:
                    self._durable = sub.rows[-1][0]
                if sub.receipt is not None:
                    self._receipts.pop(sub.receipt.command_id, None)
            self._inflight = []
            self._written = group[-1].ticket
        self._tell(self._written)

    def _fail(self, message: str) -> None:
        log.error("%s; nothing more is stored (%d appends lost)", message,
                  len(self._inflight) + len(self._queue))
        with self._cond:
            self.failed = message
        self._tell(None)

    def _tell(self, ticket: int | None) -> None:
        callback = self.on_written
        if callback is None:
            return
        try:
            callback(ticket)
        except Exception:  # e.g. its event loop is closed already: nobody is waiting
            log.debug("event store: written notice not delivered", exc_info=True)
