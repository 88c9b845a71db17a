"""What the session needs to know about a stream item without interpreting it.

The feed hands the model the JSON object that was on the wire, after checking only its
envelope (`envelope`): the model reads wire dicts and refuses what it cannot apply
(`ModelInputError`), so validating every field of every item into typed models first (pydantic)
cost more than everything the model does with it. Typed items are built on demand by whoever
wants them (`t3tui.protocol.stream.decode_thread_item`; the TUI's transcripts do, for the few
event types they show). Items may be typed or wire dicts; both are understood here.
"""

from __future__ import annotations

from typing import Any

from t3tui.protocol import ProtocolError
from t3tui.protocol.base import type_name

SNAPSHOT_KINDS = {"snapshot"}


def _kind(item: Any) -> Any:
    return item.get("kind") if isinstance(item, dict) else getattr(item, "kind", None)


def readable(raw: Any) -> bool:
    """The envelope `envelope` accepts, checked without building any message: an object with
    a string `kind` and, when present, an integer `sequence` (the per-item fast path)."""
    return raw.__class__ is dict and raw.get("kind").__class__ is str and (
        (seq := raw.get("sequence")) is None or seq.__class__ is int)


def envelope(raw: Any, what: str) -> dict[str, Any]:
    """The item itself when its envelope is readable: an object with a string `kind` and, when
    present, an integer `sequence`. Raises `ProtocolError` (the message a full decode gives)."""
    if readable(raw):
        return raw
    if not isinstance(raw, dict):
        raise ProtocolError(f"{what} must be a JSON object, got {type_name(raw)}")
    if not isinstance(raw.get("kind"), str):
        raise ProtocolError(f"{what} has no string 'kind'")
    seq = raw.get("sequence")
    if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int)):
        raise ProtocolError(f"{what}: 'sequence' must be an integer, got {type_name(seq)}")
    return raw


def is_snapshot(item: Any) -> bool:
    return _kind(item) == "snapshot"


def is_marker(item: Any) -> bool:
    """The `synchronized` item that separates catch-up from live delivery."""
    return _kind(item) == "synchronized"


def is_duplicate(item: Any, cursor: int | None) -> bool:
    """True for an item already applied: its sequence is at or below the stream's cursor.

    Sequences are global, so a stream sees gaps; loss is never detected by expecting `+1`
    (t3-protocol §6). Snapshots always pass: one behind the cursor means a restored database.
    """
    if cursor is None or is_snapshot(item):
        return False
    sequence = item.get("sequence") if isinstance(item, dict) else getattr(item, "sequence", None)
    return isinstance(sequence, int) and not isinstance(sequence, bool) and sequence <= cursor
