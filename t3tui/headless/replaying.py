"""What the headless commands share to read a recording: open it, and read `--at TIME`."""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from t3tui.client.recording import RecordingError, read_recording
from t3tui.client.replay import Replay
from t3tui.headless.common import CommandError
from t3tui.model.labels import one_line

AT_HELP = ("a moment of the recording: an ISO time (2026-12-02T05:17:45Z), a UTC clock time "
           "(05:17:45), an offset from its start (+90, +1m30s, +1:30) or from its end "
           "(-30s), 'start' or 'end' (default)")
_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?$")


def open_replay(path: str, new_sink: Any, on_item: Any = None) -> Replay:
    """The recording at `path`, ready to replay; its warnings go to stderr (one line each)."""
    try:
        recording = read_recording(path)
    except RecordingError as exc:
        raise CommandError(str(exc)) from None
    for warning in recording.warnings:
        print(f"t3tui: warning: {one_line(warning)}", file=sys.stderr)
    return Replay(recording, new_sink, on_item)


def seconds(text: str) -> float | None:
    """`90`, `1m30s`, `1:30`, `1:02:03`, `2.5s`, `1h` as seconds (None when not one)."""
    text = text.strip()
    if ":" in text:
        parts = text.split(":")
        try:
            values = [float(p) for p in parts]
        except ValueError:
            return None
        total = 0.0
        for value in values:
            total = total * 60 + value
        return total if len(parts) <= 3 else None
    match = _DURATION.match(text)
    if not text or match is None or not any(match.groups()):
        return None
    hours, minutes, secs = (float(g) if g else 0.0 for g in match.groups())
    return hours * 3600 + minutes * 60 + secs


def parse_at(text: str | None, start: float, end: float) -> float:
    """The epoch time `text` names within a recording from `start` to `end` (see AT_HELP)."""
    if text is None or text.strip() in ("", "end"):
        return end
    text = text.strip()
    if text == "start":
        return start
    if text[0] in "+-":
        offset = seconds(text[1:])
        if offset is None:
            raise CommandError(f"--at {text!r}: not an offset such as +90, +1m30s or -30s")
        return start + offset if text[0] == "+" else end - offset
    clock = _CLOCK.match(text)
    if clock is not None:
        day = datetime.fromtimestamp(start, UTC).replace(hour=0, minute=0, second=0,
                                                          microsecond=0)
        hours, minutes = int(clock.group(1)), int(clock.group(2))
        secs = float(clock.group(3) or 0)
        if hours > 23 or minutes > 59 or secs >= 60:
            raise CommandError(f"--at {text!r}: not a clock time")
        at = (day + timedelta(hours=hours, minutes=minutes, seconds=secs)).timestamp()
        return at + 86400 if at < start - 43200 else at  # the recording crossed midnight
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise CommandError(f"--at {text!r}: {AT_HELP}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def check_within(at: float, start: float, end: float, text: str | None) -> None:
    """A moment outside the recording is a usage error, not a silent clamp."""
    if at < start - 0.0005 or at > end + 0.0005:
        first = datetime.fromtimestamp(start, UTC).strftime("%H:%M:%S.%f")[:-3]
        last = datetime.fromtimestamp(end, UTC).strftime("%H:%M:%S.%f")[:-3]
        raise CommandError(f"--at {text!r} is outside the recording ({first} to {last} UTC)")
