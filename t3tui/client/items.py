"""What the session needs to know about a stream item without interpreting it."""

from __future__ import annotations

from typing import Any

from t3tui.protocol.stream import (
    ShellSnapshotItem,
    ShellSynchronized,
    ThreadSnapshotItem,
    ThreadSynchronized,
)


def is_snapshot(item: Any) -> bool:
    return isinstance(item, ShellSnapshotItem | ThreadSnapshotItem)


def is_marker(item: Any) -> bool:
    """The `synchronized` item that separates catch-up from live delivery."""
    return isinstance(item, ShellSynchronized | ThreadSynchronized)


def is_duplicate(item: Any, cursor: int | None) -> bool:
    """True for an item already applied: its sequence is at or below the stream's cursor.

    Sequences are global, so a stream sees gaps; loss is never detected by expecting `+1`
    (t3-protocol §6). Snapshots always pass: one behind the cursor means a restored database.
    """
    if cursor is None or is_snapshot(item):
        return False
    sequence = getattr(item, "sequence", None)
    return isinstance(sequence, int) and sequence <= cursor
