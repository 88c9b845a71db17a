"""Small helpers shared by the detectors."""

from __future__ import annotations

from datetime import datetime, timedelta

from t3tui.model.deadlines import note


def held(since: datetime | None, now: datetime, dwell_s: float) -> bool:
    """The condition that began at `since` has lasted at least `dwell_s`.

    Rules read the clock only through `held` and `reached`: they note the moment the answer
    flips, so a row is re-derived then and not before (`t3tui/model/deadlines.py`).
    """
    if since is None:
        return False
    if (now - since).total_seconds() >= dwell_s:
        return True
    note(since + timedelta(seconds=dwell_s))
    return False


def reached(at: datetime | None, now: datetime) -> bool:
    """`now` is at or past `at` (a deadline); notes `at` while it is still ahead."""
    if at is None:
        return False
    if now >= at:
        return True
    note(at)
    return False


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


def declares(*, depends: tuple[str, ...], dwell: str | None = None,
             quiets: tuple[str, ...] = ()):
    """Mark a rule with the facts it reads and the config field of its dwell.

    `depends` names `ThreadContext` attributes (dotted into `own`/`parent`/`task`), so an
    incremental scheduler can re-run the rule only when one of them changed; `dwell` names the
    `DetectorConfig` field whose time after the rule's onset is its deadline. `quiets`: own
    times among `depends` (`own.agent_progress_at`) whose moving later, from one time to a
    later one, never makes the rule find what it did not (it only ever silences it): a rule
    that found nothing need not run again for that (tests/model/test_rule_dependencies.py
    moves each of them later on every fixture's contexts).
    """
    if not set(quiets) <= set(depends) or not all(q.startswith("own.") for q in quiets):
        raise ValueError(f"quiets {quiets} must be own facts among depends")

    def mark(fn):
        fn.depends = frozenset(depends)
        fn.dwell = dwell
        fn.quiets = frozenset(q.removeprefix("own.") for q in quiets)
        return fn

    return mark
