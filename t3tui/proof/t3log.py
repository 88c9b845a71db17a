"""T3's provider protocol log: `<state>/logs/provider/events.<thread>.log` (rotated `.log.N`).

Lines are `[ISO time] NTIVE|CANON|ORCH: <json>`: NTIVE the raw provider protocol (a Codex
`turn/completed`), CANON the normalised runtime event, ORCH the orchestration event. Which
notifications reached T3 (NTIVE) and which it projected (ORCH) tells the three cases apart.
The exact file-name segment of a thread id is inferred: the raw id and a sanitised form are
both tried. Read-only and tailed like the rollouts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from t3tui.model.provider_record import FOUND, MISSING, UNREADABLE, ProtocolLog
from t3tui.proof.locate import safe_id
from t3tui.proof.tail import JsonlTail, TailError

_LINE = re.compile(rb"^\[(?P<at>[^\]]{1,64})\] (?P<tag>NTIVE|CANON|ORCH): (?P<body>.*)$", re.S)
_SEGMENT = re.compile(r"[^A-Za-z0-9._-]")
TERMINAL_TURN = frozenset({"completed", "failed", "interrupted", "cancelled"})


def log_line(raw: bytes) -> dict[str, Any] | None:
    m = _LINE.match(raw)
    if m is None:
        return None
    try:
        body = json.loads(m.group("body"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(body, dict):
        return None
    return {"at": m.group("at").decode("utf-8", "replace"), "tag": m.group("tag").decode(),
            "body": body}


def candidates(logs_dir: Path, thread_id: str) -> list[Path]:
    names = [thread_id] if safe_id(thread_id) and ":" not in thread_id else []
    names.append(_SEGMENT.sub("_", thread_id)[:200])
    return [logs_dir / f"events.{n}.log" for n in dict.fromkeys(names)]


def _completed_native_turn(body: dict[str, Any]) -> str | None:
    method = body.get("method")
    params = body.get("params") if isinstance(body.get("params"), dict) else {}
    if method == "turn/completed":
        turn = params.get("turn") if isinstance(params.get("turn"), dict) else {}
        turn_id = turn.get("id", params.get("turnId"))
        return turn_id if isinstance(turn_id, str) else None
    if isinstance(method, str) and method.endswith(("task_complete", "turn_aborted")):
        msg = params.get("msg") if isinstance(params.get("msg"), dict) else params
        turn_id = msg.get("turn_id") or params.get("id")
        return turn_id if isinstance(turn_id, str) else None
    return None


@dataclass
class _Follow:
    path: Path | None = None
    tail: JsonlTail | None = None
    ntive: set[str] = field(default_factory=set)
    orch: set[str] = field(default_factory=set)
    lines: int = 0
    skipped: int = 0
    log: ProtocolLog | None = None


class ProtocolLogReader:
    """Tails the protocol logs of the threads asked for (`refresh(thread ids)`)."""

    def __init__(self, logs_dir: Path, *, final: bool = False) -> None:
        self.logs_dir = logs_dir
        self.final = final
        self._follows: dict[str, _Follow] = {}

    def refresh(self, thread_ids: set[str] | list[str]) -> dict[str, ProtocolLog]:
        out = {}
        for thread_id in thread_ids:
            follow = self._follows.setdefault(thread_id, _Follow())
            out[thread_id] = self._update(thread_id, follow)
        for gone in [t for t in self._follows if t not in out]:
            del self._follows[gone]
        return out

    def _update(self, thread_id: str, f: _Follow) -> ProtocolLog:
        if f.tail is None:
            f.path = next((p for p in candidates(self.logs_dir, thread_id) if p.is_file()), None)
            if f.path is None:
                f.log = ProtocolLog(MISSING, detail="no protocol log for this thread")
                return f.log
            f.tail = JsonlTail(f.path, log_line)
        try:
            batch = f.tail.read()
            if self.final:
                extra = f.tail.finish()
                batch.lines += extra.lines
                batch.skipped += extra.skipped
        except TailError as exc:
            f.tail = None
            f.log = ProtocolLog(UNREADABLE, str(f.path), str(exc))
            return f.log
        if batch.reset:
            f.ntive, f.orch, f.lines, f.skipped = set(), set(), 0, 0
        for _, line in batch.lines:
            body = line["body"]
            if line["tag"] == "NTIVE" and (turn := _completed_native_turn(body)):
                f.ntive.add(turn)
            elif line["tag"] == "ORCH":
                event = body.get("event") if isinstance(body.get("event"), dict) else body
                payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
                if event.get("type") == "provider-turn.updated" \
                        and payload.get("status") in TERMINAL_TURN and isinstance(payload.get("id"), str):
                    f.orch.add(payload["id"])
        f.lines += len(batch.lines) + batch.skipped
        f.skipped += batch.skipped
        f.log = ProtocolLog(FOUND, str(f.path), None, frozenset(f.ntive), frozenset(f.orch),
                            f.lines, f.skipped)
        return f.log
