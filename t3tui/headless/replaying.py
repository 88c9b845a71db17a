"""What the headless commands share to read a recording: open it, and read `--at TIME`."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Any

from t3tui.client.recording import RecordingError, read_recording
from t3tui.client.replay import Replay
from t3tui.headless.common import CommandError
from t3tui.model import timespec
from t3tui.model.labels import one_line
from t3tui.model.timespec import AT_HELP

__all__ = ["AT_HELP", "check_within", "open_replay", "parse_at"]


def open_replay(path: str, new_sink: Any, on_item: Any = None) -> Replay:
    """The recording at `path`, ready to replay; its warnings go to stderr (one line each)."""
    try:
        recording = read_recording(path)
    except RecordingError as exc:
        raise CommandError(str(exc)) from None
    for warning in recording.warnings:
        print(f"t3tui: warning: {one_line(warning)}", file=sys.stderr)
    return Replay(recording, new_sink, on_item)


def parse_at(text: str | None, start: float, end: float) -> float:
    try:
        return timespec.parse_at(text, start, end)
    except timespec.TimeSpecError as exc:
        raise CommandError(f"--at {exc}") from None


def check_within(at: float, start: float, end: float, text: str | None) -> None:
    """A moment outside the recording is a usage error, not a silent clamp."""
    if at < start - 0.0005 or at > end + 0.0005:
        first = datetime.fromtimestamp(start, UTC).strftime("%H:%M:%S.%f")[:-3]
        last = datetime.fromtimestamp(end, UTC).strftime("%H:%M:%S.%f")[:-3]
        raise CommandError(f"--at {text!r} is outside the recording ({first} to {last} UTC)")
