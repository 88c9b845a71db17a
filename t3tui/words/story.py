"""A finding's evidence as a story: its sentence, then a mini timeline of the moments the
evidence records, in people's words and with threads by name.

    wait calls ran one at a time: Reviewer B arrived only when the wait on Reviewer A returned
      12:01:28  the wait on “Reviewer A” returned
      12:01:28  → “Reviewer B” created, 0.02 s later

The raw `key=value` evidence stays one key away (`v` in the app, `status --json`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from t3tui.model import Finding
from t3tui.model.labels import clock, one_line
from t3tui.words.names import Threads, humanize, name_for

MOMENTS = 6  # timeline lines shown; the rest is in the raw evidence


@dataclass(frozen=True)
class Moment:
    at: datetime
    text: str


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or len(value) < 19 or value[10:11] != "T":
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _words(key: str) -> str:
    """`lastProgressAt` -> `last progress`."""
    key = key.removesuffix("At") if key.endswith("At") and len(key) > 2 else key
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: " " + m.group(1).lower(), key).lower()


# Known evidence moments: key -> what happened then ({name} is filled in where it helps).
PHRASES = {
    "runStartedAt": "the run started",
    "detachedAt": "its provider session was detached by {detachedByThreadId} ({detachReason})",
    "lastProgressAt": "last sign of progress",
    "lastAgentProgressAt": "last sign of agent progress",
    "lastActivityAt": "last activity",
    "providerFinishedAt": "the provider finished the turn; the run still shows running",
    "sentAt": "check-in {expect!r} sent",
    "deadline": "check-in deadline passed without the answer",
    "waitingSince": "the run began draining",
    "since": "the provider session went {sessionStatus}",
    "shellUpdatedAt": "last shell update",
    "completedAt": "the child finished",
    "disposedAt": "its completion wake was disposed",
    "endedAt": "the provider's own record ended the turn ({marker}, line {recordLine}, "
               "last message {lastMessage!r})",
    "recordLastLineAt": "the provider's own record was last written",
}


def _fill(phrase: str, evidence: Mapping[str, Any], view: Threads | None,
          context_id: str | None) -> str:
    def field(match: re.Match[str]) -> str:
        key, conv = match.group(1), match.group(2)
        value = evidence.get(key)
        if value is None:
            return "another thread" if key.endswith("ThreadId") else "?"
        if key.endswith(("ThreadId", "TaskId")) and isinstance(value, str):
            return name_for(value, view, context_id)
        text = one_line(str(value)).rstrip(".")
        return repr(text) if conv == "!r" else text

    return re.sub(r"\{(\w+)(!r)?\}", field, phrase)


def _pair_moments(pair: Mapping[str, Any], view: Threads | None,
                  context_id: str | None) -> list[Moment]:
    """A serialized pair: the previous wait returned, then the next child arrived."""
    found = []
    returned, arrived = _time(pair.get("previousReturnedAt")), _time(pair.get("nextArrivedAt"))
    prev = _named(pair, "previous", view, context_id)
    nxt = _named(pair, "next", view, context_id)
    if returned is not None:
        found.append(Moment(returned, f"the wait on {prev} returned"))
    if arrived is not None:
        gap = pair.get("gapSeconds")
        later = f", {gap:g} s later" if isinstance(gap, int | float) else ""
        found.append(Moment(arrived, f"{nxt} created{later}"))
    return found


def _named(pair: Mapping[str, Any], side: str, view: Threads | None,
           context_id: str | None) -> str:
    task = pair.get(f"{side}TaskId")
    if isinstance(task, str) and task:
        return name_for(task, view, context_id)
    title = pair.get(f"{side}Title")
    return f"“{one_line(str(title))}”" if title else f"the {side} child"


def moments(finding: Finding, view: Threads | None = None,
            context_id: str | None = None) -> list[Moment]:
    """The evidence's moments in time order."""
    evidence = finding.evidence
    found: list[Moment] = []
    for key, value in evidence.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for record in value:
                if "previousReturnedAt" in record or "nextArrivedAt" in record:
                    found.extend(_pair_moments(record, view, context_id))
            continue
        at = _time(value)
        if at is None:
            continue
        phrase = PHRASES.get(key)
        text = _fill(phrase, evidence, view, context_id) if phrase else _words(key)
        found.append(Moment(at, text))
    found.sort(key=lambda m: m.at)
    return found


def story(finding: Finding, view: Threads | None = None,
          context_id: str | None = None) -> tuple[str, list[str]]:
    """(the finding's sentence with threads by name, its timeline lines)."""
    sentence = humanize(finding.reason, view, context_id)
    lines = []
    shown = moments(finding, view, context_id)
    for i, moment in enumerate(shown[:MOMENTS]):
        lines.append(f"{clock(moment.at)}  {'→ ' if i else ''}{moment.text}")
    if len(shown) > MOMENTS:
        lines.append(f"… {len(shown) - MOMENTS} more moments in the raw evidence")
    return sentence, lines
