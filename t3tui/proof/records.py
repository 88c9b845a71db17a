"""Follow the provider records of the threads a supervisor shows (read-only, incremental).

`RecordReader.refresh(wanted)` takes thread id -> `NativeRef` (from
`Supervisor.native_threads()`) and returns thread id -> `ProviderRecord`. Each native thread's
file is located once (a missing one is looked for again at most every `relook_s`, since Codex
creates a rollout lazily), then tailed: each refresh reads only the bytes appended since the
last. A missing or unreadable file is a record with state `missing` / `unreadable`, which the
detectors never turn into a verdict.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from t3tui.model.provider_record import (
    CLAUDE,
    CODEX,
    FOUND,
    MISSING,
    UNREADABLE,
    NativeRef,
    ProviderRecord,
    Tracker,
    new_tracker,
)
from t3tui.proof.homes import ProofHomes
from t3tui.proof.locate import find_claude_transcript, find_codex_rollout
from t3tui.proof.t3log import ProtocolLogReader
from t3tui.proof.tail import JsonlTail, TailError


@dataclass
class _Follow:
    driver: str
    native_id: str
    path: Path | None = None
    tail: JsonlTail | None = None
    tracker: Tracker | None = None
    lines: int = 0
    skipped: int = 0
    looked_at: float = 0.0
    error: str | None = None
    record: ProviderRecord | None = None
    dirty: bool = True
    meta_checked: bool = False
    extra: dict[str, str] = field(default_factory=dict)


class RecordReader:
    """Tails the provider records of native threads. Not thread-safe: one caller at a time
    (run `refresh` in a worker thread, apply its result on the event loop)."""

    def __init__(self, homes: ProofHomes, *, until: datetime | None = None,
                 relook_s: float = 2.0, monotonic: Callable[[], float] = time.monotonic,
                 final: bool = False) -> None:
        """`until`: ignore record lines after this moment (a post-mortem `--at`). `final`: the
        files are done being written (a partial last line is counted as truncated)."""
        self.homes = homes
        self.until = until
        self.relook_s = relook_s
        self.final = final
        self._monotonic = monotonic
        self._follows: dict[tuple[str, str], _Follow] = {}
        self.bytes_read = 0
        self.reading = False  # a read runs in a thread now (`proof.feed`): no second on top
        # T3's protocol logs, read next to the records when their dir is known
        self.protocol_logs = ProtocolLogReader(homes.t3_logs, final=final) \
            if homes.t3_logs is not None else None

    def refresh(self, wanted: dict[str, NativeRef]) -> dict[str, ProviderRecord]:
        if not self.homes.enabled:
            return {}
        out: dict[str, ProviderRecord] = {}
        keep: set[tuple[str, str]] = set()
        for thread_id, ref in wanted.items():
            for driver in self._drivers(ref):
                key = (driver, ref.native_id)
                keep.add(key)
                follow = self._follows.get(key) or self._follows.setdefault(
                    key, _Follow(driver, ref.native_id))
                record = self._update(follow)
                if record.state == FOUND or driver == self._drivers(ref)[-1]:
                    out[thread_id] = record
                    break
        for key in [k for k in self._follows if k not in keep]:
            del self._follows[key]  # no longer shown: stop following
        self.bytes_read = sum(f.tail.bytes_read for f in self._follows.values() if f.tail)
        return out

    def _drivers(self, ref: NativeRef) -> tuple[str, ...]:
        if ref.driver == CLAUDE:
            return (CLAUDE,) if self.homes.claude else ()
        if ref.driver == CODEX:
            return (CODEX,) if self.homes.codex else ()
        # another driver name (a scripted or renamed instance): look where a file could be
        return tuple(d for d, home in ((CODEX, self.homes.codex), (CLAUDE, self.homes.claude)) if home)

    def _locate(self, follow: _Follow) -> Path | None:
        if follow.driver == CLAUDE:
            assert self.homes.claude is not None
            return find_claude_transcript(self.homes.claude, follow.native_id)
        assert self.homes.codex is not None
        return find_codex_rollout(self.homes.codex, follow.native_id)

    def _update(self, follow: _Follow) -> ProviderRecord:
        if follow.tail is None:
            now = self._monotonic()
            if follow.record is not None and now - follow.looked_at < self.relook_s:
                return follow.record
            follow.looked_at = now
            try:
                follow.path = self._locate(follow)
            except OSError as exc:
                return self._store(follow, UNREADABLE, f"cannot search: {exc.strerror or exc}")
            if follow.path is None:
                return self._store(follow, MISSING, "no provider record")
            follow.tail = JsonlTail(follow.path)
            follow.tracker = new_tracker(follow.driver, self.until)
        assert follow.tail is not None and follow.tracker is not None
        try:
            batch = follow.tail.read()
            if self.final:
                extra = follow.tail.finish()
                batch.lines += extra.lines
                batch.skipped += extra.skipped
        except TailError as exc:
            follow.tail = None  # look for it again (moved to archived_sessions, say)
            return self._store(follow, UNREADABLE, str(exc))
        if batch.reset:
            follow.tracker = new_tracker(follow.driver, self.until)
            follow.lines = follow.skipped = 0
            follow.meta_checked = False
        if not batch.lines and not batch.skipped and follow.record is not None \
                and follow.record.state == FOUND:
            return follow.record
        for number, line in batch.lines:
            if not follow.tracker.feed(line, number):
                follow.skipped += 1
        follow.lines += len(batch.lines) + batch.skipped
        follow.skipped += batch.skipped
        sid = follow.tracker.session_id
        if sid is not None and sid != follow.native_id:
            return self._store(follow, UNREADABLE,
                               f"{follow.path} belongs to thread {sid[:40]}, not {follow.native_id}")
        return self._store(follow, FOUND, None)

    def _store(self, follow: _Follow, state: str, detail: str | None) -> ProviderRecord:
        tracker = follow.tracker
        record = ProviderRecord(
            driver=follow.driver, native_id=follow.native_id, state=state,
            path=str(follow.path) if follow.path else None, detail=detail,
            turns=tuple(tracker.turns) if tracker and state == FOUND else (),
            lines=follow.lines, skipped=follow.skipped,
            last_line_at=tracker.last_line_at if tracker else None,
        )
        follow.record = record
        return record
