"""Find a native thread's record file under a provider home (read-only globbing).

Codex: `sessions/YYYY/MM/DD/rollout-<stamp>-<thread id>.jsonl` (or `.jsonl.zst`; the plain
file wins), then `archived_sessions/` (flat). Directory dates are local time, so the UUIDv7
timestamp of the id narrows the search to three days before falling back to every day.
Claude Code: `projects/*/<session id>.jsonl` (the slug is not recomputed).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_SAFE = re.compile(r"^[A-Za-z0-9._:-]+$")


def safe_id(native_id: str) -> bool:
    """A native id we may put in a glob (no separators, no glob characters, no '..')."""
    return bool(_SAFE.match(native_id)) and ".." not in native_id and len(native_id) <= 200


def uuid7_day(native_id: str) -> datetime | None:
    """The creation time a UUIDv7 carries in its first 48 bits (None for other ids)."""
    if not _UUID.match(native_id) or native_id[14] != "7":
        return None
    millis = int(native_id.replace("-", "")[:12], 16)
    try:
        return datetime.fromtimestamp(millis / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _prefer_plain(found: list[Path]) -> Path | None:
    if not found:
        return None
    plain = [p for p in found if p.name.endswith(".jsonl")]
    return sorted(plain or found)[0]


def find_codex_rollout(home: Path, native_id: str) -> Path | None:
    if not safe_id(native_id):
        return None
    pattern = f"rollout-*-{native_id}.jsonl*"
    sessions = home / "sessions"
    day = uuid7_day(native_id)
    if day is not None:
        for delta in (0, -1, 1):
            d = day + timedelta(days=delta)
            day_dir = sessions / f"{d:%Y}" / f"{d:%m}" / f"{d:%d}"
            hit = _prefer_plain([p for p in day_dir.glob(pattern) if _suffix_ok(p)])
            if hit is not None:
                return hit
    hit = _prefer_plain([p for p in sessions.glob(f"*/*/*/{pattern}") if _suffix_ok(p)])
    if hit is not None:
        return hit
    return _prefer_plain([p for p in (home / "archived_sessions").glob(pattern) if _suffix_ok(p)])


def _suffix_ok(path: Path) -> bool:
    return path.name.endswith((".jsonl", ".jsonl.zst"))


def find_claude_transcript(home: Path, session_id: str) -> Path | None:
    if not safe_id(session_id):
        return None
    return _prefer_plain(list((home / "projects").glob(f"*/{session_id}.jsonl")))
