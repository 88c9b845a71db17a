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
from t3tui.model.report.document import offset_text
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


def _hms(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%H:%M:%S.%f")[:-3]


def check_within(at: float, start: float, end: float, text: str | None) -> float:
    """The moment to use for `--at`: a moment past the end is the end (what the recording
    last knew; the README's `+2m` on a shorter recording), said in one line on stderr, never
    later (a dwell would run out on a clock nothing was recorded on); a moment before the
    start names no state at all: a usage error."""
    if at < start - 0.0005:
        raise CommandError(f"--at {one_line(str(text))} is before the recording starts "
                           f"({_hms(start)} to {_hms(end)} UTC)")
    if at > end + 0.0005:
        print(f"t3tui: --at {one_line(str(text))} is past the end of the recording (it lasts "
              f"{offset_text(end - start)[1:]}, {_hms(start)} to {_hms(end)} UTC): "
              "as of its end", file=sys.stderr)
        return end
    return at
