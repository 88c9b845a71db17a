"""The provider's own session records, in the formats real providers write them.

A Codex-driven instance writes rollouts the way Codex does
(`<codex home>/sessions/YYYY/MM/DD/rollout-<local stamp>-<thread id>.jsonl`: `session_meta`
first, then `turn_context`, `event_msg` `user_message` / `task_started` / `agent_message` /
`task_complete` / `turn_aborted` with `turn_id`); a `claudeAgent` instance writes Claude Code
transcripts (`<claude home>/projects/<cwd slug>/<session id>.jsonl`). Like Codex, the file
appears at the thread's first turn. The records say what the agent really did whether or not
the orchestration heard it: the seed 004 fault leaves a rollout with `task_complete` "PONG"
while the child's run stays `running`.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from t3tui.protocol import format_ts

CLAUDE_DRIVER = "claudeAgent"


def uuid7(now_ms: int | None = None) -> str:
    """A UUIDv7 (time-ordered), the shape of Codex thread ids."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | secrets.randbits(12) << 64 \
        | 0b10 << 62 | secrets.randbits(62)
    return str(uuid.UUID(int=value))


def _private_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)


class SessionRecords:
    """Writes one instance's session records (Codex rollouts or Claude transcripts)."""

    def __init__(self, *, driver: str, home: Path | None, cwd: Path, model: str,
                 clock: Callable[[], datetime]) -> None:
        self.claude = driver == CLAUDE_DRIVER
        self.home = home
        self.cwd = cwd
        self.model = model
        self._clock = clock
        self._files: dict[str, Path] = {}
        self._last_uuid: dict[str, str | None] = {}
        self._turn_started: dict[str, float] = {}

    def new_thread_id(self) -> str:
        return str(uuid.uuid4()) if self.claude else uuid7()

    def path_of(self, native: str) -> Path | None:
        return self._files.get(native)

    # what the agent did

    def turn_started(self, native: str, turn: str, text: str) -> None:
        self._turn_started[turn] = time.monotonic()
        if self.claude:
            self._claude(native, "user", message={"role": "user", "content": text})
            return
        self._codex(native, "turn_context", {"turn_id": turn, "cwd": str(self.cwd),
                                              "model": self.model, "approval_policy": "never"})
        self._codex(native, "event_msg", {"type": "user_message", "message": text, "images": []})
        self._codex(native, "event_msg", {"type": "task_started", "turn_id": turn,
                                          "started_at": int(self._clock().timestamp()),
                                          "model_context_window": 272000})

    def turn_completed(self, native: str, turn: str, reply: str) -> None:
        if self.claude:
            self._claude(native, "assistant", message={
                "role": "assistant", "model": self.model, "stop_reason": "end_turn",
                "content": [{"type": "text", "text": reply}]})
            self._claude(native, "system", subtype="turn_duration",
                         durationMs=self._elapsed_ms(turn), messageCount=2)
            return
        self._codex(native, "event_msg", {"type": "agent_message", "message": reply})
        self._codex(native, "response_item", {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text", "text": reply}]})
        self._codex(native, "event_msg", {"type": "task_complete", "turn_id": turn,
                                          "last_agent_message": reply,
                                          "duration_ms": self._elapsed_ms(turn)})

    def turn_failed(self, native: str, turn: str, message: str) -> None:
        if self.claude:
            self._claude(native, "assistant", isApiErrorMessage=True, message={
                "role": "assistant", "model": self.model, "stop_reason": "stop_sequence",
                "content": [{"type": "text", "text": message}]})
            return
        self._codex(native, "event_msg", {"type": "task_complete", "turn_id": turn,
                                          "last_agent_message": None,
                                          "error": {"message": message,
                                                    "codex_error_info": "other"}})

    def turn_interrupted(self, native: str, turn: str) -> None:
        if self.claude:
            self._claude(native, "user", message={"role": "user", "content": [
                {"type": "text", "text": "[Request interrupted by user]"}]})
            return
        self._codex(native, "event_msg", {"type": "turn_aborted", "turn_id": turn,
                                          "reason": "interrupted",
                                          "duration_ms": self._elapsed_ms(turn)})

    # files

    def _elapsed_ms(self, turn: str) -> int:
        started = self._turn_started.pop(turn, None)
        return int((time.monotonic() - started) * 1000) if started is not None else 0

    def _file(self, native: str) -> Path | None:
        if self.home is None:
            return None
        path = self._files.get(native)
        if path is not None:
            return path
        now = self._clock()
        if self.claude:
            slug = re.sub(r"[^A-Za-z0-9]", "-", str(self.cwd))
            path = self.home / "projects" / slug / f"{native}.jsonl"
        else:
            local = now.astimezone()  # Codex names directories and files in local time
            path = (self.home / "sessions" / f"{local:%Y}" / f"{local:%m}" / f"{local:%d}"
                    / f"rollout-{local:%Y-%m-%dT%H-%M-%S}-{native}.jsonl")
        _private_dir(path.parent)
        self._files[native] = path
        if not self.claude:
            self._append(path, {"timestamp": format_ts(now), "type": "session_meta", "payload": {
                "id": native, "timestamp": format_ts(now), "cwd": str(self.cwd),
                "originator": "t3tui_reference_backend", "cli_version": "0.0.0-scripted",
                "source": "exec", "model_provider": "scripted"}})
        return path

    def _codex(self, native: str, kind: str, payload: dict[str, Any]) -> None:
        path = self._file(native)
        if path is not None:
            self._append(path, {"timestamp": format_ts(self._clock()), "type": kind,
                                "payload": payload})

    def _claude(self, native: str, kind: str, **fields: Any) -> None:
        path = self._file(native)
        if path is None:
            return
        line_id = str(uuid.uuid4())
        line = {"parentUuid": self._last_uuid.get(native), "isSidechain": False,
                "userType": "external", "cwd": str(self.cwd), "sessionId": native,
                "version": "0.0.0-scripted", "type": kind, "uuid": line_id,
                "timestamp": format_ts(self._clock()), **fields}
        self._last_uuid[native] = line_id
        self._append(path, line)

    @staticmethod
    def _append(path: Path, line: dict[str, Any]) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")
