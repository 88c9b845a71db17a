"""A read-only source that replays recorded stream frames (snapshots, screenshots, demos).

A frames file is JSON: `{"description": str, "frames": [frame, ...]}`, where a frame is
`{"stream": "shell", "item": {...}}` or `{"stream": "thread", "threadId": id, "item": {...}}`
with items exactly as they come off the wire; `{"mark": name}` entries name a point where a
replay can stop (`until=`). Items are
decoded by `t3tui.protocol` as the client does. With a frozen clock and fixed ids in the
frames, every render is the same.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from t3tui.client.session import StreamUpdate
from t3tui.client.settle_guard import DEAD_SESSION, SharedSession, shared_sessions
from t3tui.client.state import Connecting, ConnectionState, Live, Observable
from t3tui.model import DetectorConfig, Supervisor
from t3tui.protocol import ProtocolError
from t3tui.protocol.projection import ThreadProjection
from t3tui.protocol.stream import decode_shell_item, decode_thread_item
from t3tui.tui.sources.readonly import ReadOnlySource
from t3tui.tui.sources.source import TeeSink
from t3tui.tui.sources.transcripts import TranscriptStore

T = TypeVar("T")
# event type prefix -> the projection list it upserts (what the settle guard reads)
SESSION_KEYS = {"provider-session.": "providerSessions", "provider-thread.": "providerThreads"}


class FramesError(Exception):
    """A frames file is missing or malformed; the message names the file and the frame."""


def load_frames(path: str | Path) -> list[dict[str, Any]]:
    """Frames from a file path, or from a name bundled in `t3tui/tui/frames/` (`showcase`)."""
    text_path = Path(path)
    try:
        if text_path.suffix == ".json" and text_path.exists():
            text = text_path.read_text(encoding="utf-8")
        else:
            text = resources.files("t3tui.tui").joinpath("recorded", f"{path}.json").read_text(
                encoding="utf-8"
            )
    except (OSError, FileNotFoundError) as exc:
        raise FramesError(f"cannot read frames {path}: {exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FramesError(f"frames {path} are not JSON: {exc}") from None
    frames = doc.get("frames") if isinstance(doc, dict) else None
    if not isinstance(frames, list):
        raise FramesError(f"frames {path}: expected an object with a 'frames' list")
    return frames


class FrameSource(ReadOnlySource):
    """Feeds recorded frames to a supervisor, then holds a scripted connection state."""

    refusal = "recorded frames are read-only: nothing was sent"

    def __init__(
        self,
        frames: Iterable[dict[str, Any]],
        *,
        label: str = "recorded frames",
        final_state: ConnectionState | None = None,
        config: DetectorConfig | None = None,
        stale: bool = False,
        until: str | None = None,
    ) -> None:
        super().__init__()
        self.label = label
        self.supervisor = Supervisor(config=config)
        self.transcripts = TranscriptStore()
        self.state: Observable[ConnectionState] = Observable(Connecting())
        self._frames = list(frames)
        self._final = final_state or Live()
        self._stale = stale
        self._until = until
        self._sink = TeeSink(self.supervisor, self.transcripts)
        self._projections: dict[str, dict[str, list[dict[str, Any]]]] = {}
        self._stopped = asyncio.Event()

    def apply_all(self) -> int:
        """Apply every frame now; returns how many were applied (raises `FramesError`)."""
        applied = 0
        for index, frame in enumerate(self._frames):
            if "mark" in frame:
                if frame["mark"] == self._until:
                    break
                continue
            try:
                if frame.get("stream") == "shell":
                    self._sink.apply_shell(decode_shell_item(frame["item"]))
                else:
                    thread_id = frame["threadId"]
                    item = decode_thread_item(frame["item"])
                    self._sink.apply_thread(thread_id, item)
                    self._fold(thread_id, frame["item"])
            except (KeyError, TypeError, ProtocolError) as exc:
                raise FramesError(f"frame {index} is malformed: {exc}") from None
            applied += 1
        if self._stale:
            self.supervisor.mark_stale()
        return applied

    def _fold(self, thread_id: str, raw: dict[str, Any]) -> None:
        """Keep each thread's provider sessions and threads current: the settle guard's input."""
        if raw.get("kind") == "snapshot":
            projection = raw.get("projection") or {}
            self._projections[thread_id] = {
                key: list(projection.get(key) or []) for key in SESSION_KEYS.values()
            }
            return
        event = raw.get("event") or {}
        key = next((k for prefix, k in SESSION_KEYS.items()
                    if str(event.get("type", "")).startswith(prefix)), None)
        payload = event.get("payload")
        if key is None or not isinstance(payload, dict) or event.get("type", "").endswith(
                "detached"):
            return
        rows = self._projections.setdefault(thread_id, {k: [] for k in SESSION_KEYS.values()})[key]
        rows[:] = [r for r in rows if r.get("id") != payload.get("id")] + [payload]

    async def run(self) -> None:
        applied = self.apply_all()
        self._notify(StreamUpdate(None, applied, True))
        self.state.set(self._final)
        await self._stopped.wait()

    async def stop(self) -> None:
        self._stopped.set()

    async def settle_risks(
        self, thread_id: str, descendants: Iterable[str]
    ) -> list[SharedSession]:
        known = {t: ThreadProjection.from_wire(p) for t, p in self._projections.items()}
        parent = known.get(thread_id)
        if parent is None:
            return []
        return shared_sessions(parent, {t: known[t] for t in descendants if t in known})

    async def live_sessions(self, thread_id: str) -> list[str]:
        rows = self._projections.get(thread_id, {}).get("providerSessions", [])
        return sorted(str(r.get("id")) for r in rows if r.get("status") not in DEAD_SESSION)
