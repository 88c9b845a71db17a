"""A moment of a recording, as a user types it: `--at TIME` and the app's go-to prompt.

Pure: the recording's first and last moments are passed in (epoch seconds).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta


class TimeSpecError(ValueError):
    """The text names no moment; the message says what was expected (one line)."""


AT_HELP = ("a moment of the recording: an ISO time (2026-12-02T05:17:45Z), a UTC clock time "
           "(05:17:45), an offset from its start (+90, +1m30s, +1:30) or from its end "
           "(-30s), 'start' or 'end' (default)")
_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?$")


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
            raise TimeSpecError(f"{text!r}: not an offset such as +90, +1m30s or -30s")
        return start + offset if text[0] == "+" else end - offset
    clock = _CLOCK.match(text)
    if clock is not None:
        day = datetime.fromtimestamp(start, UTC).replace(hour=0, minute=0, second=0,
                                                          microsecond=0)
        hours, minutes = int(clock.group(1)), int(clock.group(2))
        secs = float(clock.group(3) or 0)
        if hours > 23 or minutes > 59 or secs >= 60:
            raise TimeSpecError(f"{text!r}: not a clock time")
        at = (day + timedelta(hours=hours, minutes=minutes, seconds=secs)).timestamp()
        return at + 86400 if at < start - 43200 else at  # the recording crossed midnight
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise TimeSpecError(f"{text!r}: {AT_HELP}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()
