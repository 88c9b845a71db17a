"""The provider's own log: what the scripted agent really did, independent of the orchestration.

Seed 004 hinges on this: the provider's log shows a turn completed with its reply while the
orchestration still says `running`. Entries go to memory and to a JSONL file in the data dir.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from t3tui.protocol import format_ts


class ProviderLog:
    """Append-only log of provider activity; one JSON object per line."""

    def __init__(self, path: Path | None, clock: Callable[[], datetime]) -> None:
        self.path = path
        self._clock = clock
        self.entries: list[dict[str, Any]] = []
        self._file = None
        if path is not None:
            # Private whatever the umask: it holds prompts and agent output.
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            self._file = os.fdopen(fd, "a", encoding="utf-8")

    def write(self, event: str, **fields: Any) -> dict[str, Any]:
        entry = {"at": format_ts(self._clock()), "event": event, **fields}
        self.entries.append(entry)
        if self._file is not None:
            self._file.write(json.dumps(entry, separators=(",", ":")) + "\n")
            self._file.flush()
        return entry

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_log(path: Path) -> list[dict[str, Any]]:
    """Read a provider log file written by another process (skips a torn last line)."""
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return entries
