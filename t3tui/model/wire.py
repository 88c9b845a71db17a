"""Tolerant reading of wire-shaped data (camelCase dicts) handed to the model."""

from __future__ import annotations

import json
import weakref
from collections.abc import Mapping
from datetime import UTC, datetime
from sys import intern
from typing import Any, TypeVar

T = TypeVar("T")

# Where `keep_wire` leaves the decoded-from object on an item: (weak ref to the item, object).
_SOURCE = "_t3tui_wire_source"


class ModelInputError(ValueError):
    """An item the model cannot apply; the model's state is left unchanged."""


def keep_wire(item: T, wire: dict[str, Any]) -> T:
    """Let the model read `item` as `wire`, the JSON object it was just decoded from.

    Re-encoding a decoded item (`to_wire()`) costs as much as decoding it did, and the model
    stores wire-shaped dicts: with this, the client decodes once for typed consumers and the
    model takes the object that was on the wire. Only for an item decoded from exactly `wire`
    and not changed since; a copy of the item (`model_copy`) is re-encoded as before.
    """
    object.__setattr__(item, _SOURCE, (weakref.ref(item), wire))
    return item


def as_wire(obj: Any, what: str) -> dict[str, Any]:
    """A protocol model (via its `to_wire()`) or a mapping, as a plain wire dict (a plain dict
    is itself: the model only reads the envelope, and copying it was a cost of every item)."""
    if obj.__class__ is dict:
        return obj
    if isinstance(obj, Mapping):
        return dict(obj)
    source = getattr(obj, "__dict__", {}).get(_SOURCE)
    if source is not None and source[0]() is obj:
        return dict(source[1])
    to_wire = getattr(obj, "to_wire", None)
    if callable(to_wire):
        wire = to_wire()
        if isinstance(wire, Mapping):
            return dict(wire)
    raise ModelInputError(f"{what}: expected a protocol item or a JSON object, got {type(obj).__name__}")


def keyed(value: dict[str, Any]) -> dict[str, Any]:
    """The same object with its keys (and its nested objects' keys) interned.

    A frame's parser shares key strings within the frame only: a shell snapshot's 2,000 rows
    share one set, but each `thread.updated` row brings ~50 of its own (~2.5 KiB a row). Kept
    as they came, every thread's memory grows by that much the first time it changes."""
    return {intern(k): keyed(v) if v.__class__ is dict else v for k, v in value.items()}


def obj(value: Any) -> dict[str, Any]:
    """A nested object, or {} when absent or not an object."""
    return value if isinstance(value, dict) else {}


def objs(value: Any) -> list[dict[str, Any]]:
    """A list of objects, skipping anything that is not one."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# Parsed timestamps by their text: a thread's facts are rebuilt after each of its events and
# read the same few dozen stamps again. Small and cleared when full: it serves the threads
# that are busy now, not every stamp of a large tree (memory per thread must not grow).
_TS: dict[str, datetime | None] = {}
_TS_MAX = 4096


def ts(value: Any) -> datetime | None:
    """An ISO-8601 timestamp (or datetime) as an aware UTC datetime; None when unreadable."""
    if isinstance(value, str):
        try:
            return _TS[value]
        except KeyError:
            pass
        parsed = _parse_ts(value)
        if len(_TS) >= _TS_MAX:
            _TS.clear()
        _TS[value] = parsed
        return parsed
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return None


def _parse_ts(value: str) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


_DAWN = datetime.min.replace(tzinfo=UTC)


def ts_key(value: Any) -> datetime:
    """A sort key for a wire timestamp: servers differ in precision ("…:00Z" vs "…:00.500Z"),
    so text order is not time order. Unreadable or missing sorts first."""
    return ts(value) or _DAWN


def iso(value: datetime | None) -> str | None:
    """The wire form `2026-10-04T12:00:00.000Z`."""
    if value is None:
        return None
    utc = value.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def latest(*values: datetime | None) -> datetime | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def earliest(*values: datetime | None) -> datetime | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def sequence_of(item: Mapping[str, Any], key: str = "sequence") -> int:
    value = item.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ModelInputError(f"stream item {item.get('kind')!r}: `{key}` must be an integer")
    return value


def maybe_json(value: Any) -> Any:
    """Tool inputs/outputs may be JSON text; decode it when it is, else return it unchanged."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
