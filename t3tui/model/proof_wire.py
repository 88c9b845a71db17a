"""What the proof layer found, as JSON for a recording's notes, and back (pure).

Live, the provider records (and T3's protocol log) reach the supervisor beside the stream, not
in it, so a recording of the frames alone would replay without `provider_finished_unheard`.
The recorder notes each change as `providerRecord` / `protocolLog` (docs/RECORDING.md); the
replay hands them to its supervisor at the moment the live one got them. Agent text is kept
only as the excerpt a finding or report may show, and only the latest turns are kept.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from t3tui.model.provider_record import ProtocolLog, ProviderRecord, RecordTurn, excerpt
from t3tui.model.wire import ts

TURNS_KEPT = 32  # a match is by id or by the nearest start: older turns never decide


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _when(value: Any) -> datetime | None:
    return ts(value) if isinstance(value, str) else None


def iso(value: datetime | None) -> str | None:
    """To the microsecond: a replayed finding keeps the live one's `since` exactly."""
    return None if value is None else value.isoformat(timespec="microseconds")


def record_to_wire(record: ProviderRecord) -> dict[str, Any]:
    return {
        "driver": record.driver, "nativeId": record.native_id, "state": record.state,
        "path": record.path, "detail": record.detail, "lines": record.lines,
        "skipped": record.skipped, "lastLineAt": iso(record.last_line_at),
        "turns": [{"turnId": t.turn_id, "status": t.status, "startedAt": iso(t.started_at),
                   "endedAt": iso(t.ended_at), "marker": t.marker, "line": t.line,
                   "lastMessage": excerpt(t.last_message), "reason": t.reason}
                  for t in record.turns[-TURNS_KEPT:]],
    }


def record_from_wire(value: Any) -> ProviderRecord | None:
    """A noted record; None when it is not one (a damaged note is no evidence)."""
    if not isinstance(value, dict):
        return None
    driver, native, state = (_text(value.get(k)) for k in ("driver", "nativeId", "state"))
    if driver is None or native is None or state is None:
        return None
    turns = []
    for turn in value.get("turns") if isinstance(value.get("turns"), list) else ():
        if not isinstance(turn, dict) or _text(turn.get("status")) is None:
            continue
        turns.append(RecordTurn(
            _text(turn.get("turnId")), turn["status"], _when(turn.get("startedAt")),
            _when(turn.get("endedAt")), _text(turn.get("marker")), _int(turn.get("line")),
            _text(turn.get("lastMessage")), _text(turn.get("reason"))))
    return ProviderRecord(driver, native, state, _text(value.get("path")),
                          _text(value.get("detail")), tuple(turns), _int(value.get("lines")),
                          _int(value.get("skipped")), _when(value.get("lastLineAt")))


def log_to_wire(log: ProtocolLog) -> dict[str, Any]:
    return {"state": log.state, "path": log.path, "detail": log.detail,
            "ntiveCompleted": sorted(log.ntive_completed),
            "orchTerminal": sorted(log.orch_terminal), "lines": log.lines,
            "skipped": log.skipped}


def log_from_wire(value: Any) -> ProtocolLog | None:
    if not isinstance(value, dict) or _text(value.get("state")) is None:
        return None

    def ids(key: str) -> frozenset[str]:
        found = value.get(key)
        return frozenset(i for i in found if isinstance(i, str)) if isinstance(
            found, list) else frozenset()

    return ProtocolLog(value["state"], _text(value.get("path")), _text(value.get("detail")),
                       ids("ntiveCompleted"), ids("orchTerminal"), _int(value.get("lines")),
                       _int(value.get("skipped")))
