"""Small helpers shared by the detectors."""

from __future__ import annotations

from datetime import datetime


def held(since: datetime | None, now: datetime, dwell_s: float) -> bool:
    """The condition that began at `since` has lasted at least `dwell_s`."""
    return since is not None and (now - since).total_seconds() >= dwell_s


def age(since: datetime | None, now: datetime) -> float | None:
    return None if since is None else round((now - since).total_seconds(), 3)


def human(seconds: float | None) -> str:
    """`45s`, `4m`, `2h05m`."""
    if seconds is None:
        return "?"
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s" if s < 600 and s % 60 else f"{s // 60}m"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"
