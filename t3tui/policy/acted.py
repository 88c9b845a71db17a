"""The user's own actions, shared by every t3tui on this machine: a headless command (and a
key in the app) appends one line naming the server and the thread; a `watch --act` in another
process (a tmux pane, a systemd unit) reads what is new each tick and leaves that thread alone
for `user_quiet`. The file holds server URLs and thread ids, never a token; mode 0600.

`T3TUI_ACTED_LOG` names the file; default `$XDG_STATE_HOME/t3tui/acted.jsonl`, else
`~/.local/state/t3tui/acted.jsonl`. Writing it never fails an action: a problem is ignored.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from t3tui.protocol import format_ts, parse_ts

ENV = "T3TUI_ACTED_LOG"
MAX_BYTES = 256 * 1024  # past it, the older half goes (only the last minutes matter)


def acted_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get(ENV):
        return Path(env[ENV]).expanduser()
    base = env.get("XDG_STATE_HOME") or str(Path(env.get("HOME", "~")).expanduser()
                                            / ".local" / "state")
    return Path(base) / "t3tui" / "acted.jsonl"


def server_key(url: str) -> str:
    return url.rstrip("/").casefold()


def note_acted(server: str, thread_id: str, at: datetime, path: Path | None = None) -> None:
    """The user acted on `thread_id` of `server` from t3tui at `at`."""
    path = path or acted_path()
    line = json.dumps({"server": server_key(server), "threadId": thread_id,
                       "at": format_ts(at)}) + "\n"
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if path.exists() and path.stat().st_size > MAX_BYTES:
            kept = path.read_bytes()[-MAX_BYTES // 2:]
            path.write_bytes(kept[kept.find(b"\n") + 1:])
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as out:
            out.write(line)


class ActedLog:
    """What the user did on one server, read as the file grows (`read()` gives the new
    entries; the first read gives the whole file: a key pressed just before a watch started
    counts too)."""

    def __init__(self, server: str, path: Path | None = None) -> None:
        self.server = server_key(server)
        self.path = path or acted_path()
        self._offset = 0

    def read(self) -> list[tuple[str, datetime]]:
        try:
            size = self.path.stat().st_size
            if size < self._offset:
                self._offset = 0  # trimmed or replaced: read it again
            if size == self._offset:
                return []
            with self.path.open("rb") as f:
                f.seek(self._offset)
                data = f.read(size - self._offset)
        except OSError:
            return []
        complete = data[:data.rfind(b"\n") + 1]  # a line still being written waits
        self._offset += len(complete)
        out = []
        for raw in complete.splitlines():
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                entry = json.loads(raw)
                if entry.get("server") == self.server and isinstance(entry.get("threadId"), str):
                    out.append((entry["threadId"], parse_ts(entry["at"])))
        return out
