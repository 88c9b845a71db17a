"""What a policy file says, as values: durations, actions, the names a policy may watch.

A policy names a finding kind or a rule (`when`), how long t3tui must have seen the finding
(`after`) and what to do (`do`, in order). The limits bound how much the policies may do at
all; every default is chosen so that a policy switched on by mistake does little harm.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from t3tui.model.findings import (
    DUPLICATE_CHILD,
    ORPHANED_DELIVERY,
    PHANTOM_CHILD,
    PROVIDER_FINISHED_UNHEARD,
    RULE_RANK,
    RUNAWAY_PROVIDER,
    SERIALIZED_WAIT,
    STUCK,
    UNDELIVERED_RESULT,
    Finding,
)

# The actions a policy may take, by grade (a check-in asks, an interrupt ends a run, a forced
# stop detaches its provider session). `notify` tells a human and changes nothing.
ACTIONS: Final = ("notify", "checkin", "forward", "acknowledge", "dispose", "settle",
                  "interrupt", "force-stop", "stop-tree")
KINDS: Final = frozenset({STUCK, SERIALIZED_WAIT, PHANTOM_CHILD, UNDELIVERED_RESULT,
                          ORPHANED_DELIVERY, PROVIDER_FINISHED_UNHEARD, RUNAWAY_PROVIDER,
                          DUPLICATE_CHILD})
RULES: Final = frozenset(RULE_RANK)
# Findings about a run that already ended (interrupted, its provider runs on): an interrupt,
# which needs an active run, can never apply to them; the forced stop can (it detaches the
# provider session the runaway turn still runs in: T3 #5587).
RUN_ENDED: Final = frozenset({RUNAWAY_PROVIDER, "provider-active-after-interrupt"})
NEEDS_ACTIVE_RUN: Final = ("interrupt",)

_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")


class PolicyError(ValueError):
    """A policy file or entry that cannot be used; the message is one line naming the entry."""


def parse_duration(text: object) -> float:
    """"30s", "10m", "1h30m", "500ms" -> seconds. A bare number has no unit and is refused:
    a policy's dwell is a contract, and "30" could mean seconds or minutes."""
    if not isinstance(text, str):
        raise PolicyError(f"a duration is text with a unit such as \"30s\" or \"10m\", "
                          f"not {text!r}")
    compact = text.strip().replace(" ", "")
    pos, total = 0, 0.0
    for match in _PART.finditer(compact):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if not compact or pos != len(compact):
        raise PolicyError(f"not a duration: {text!r} (use e.g. \"30s\", \"10m\", \"1h30m\")")
    return total


def format_duration(seconds: float) -> str:
    """The inverse of `parse_duration` for whole units: 90 -> "1m30s"."""
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    rest, out = round(seconds), ""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if rest >= size:
            out += f"{rest // size}{unit}"
            rest %= size
    return out


def normal_when(name: str) -> str | None:
    """A rule id as written, or a finding kind written with - or _; None when unknown."""
    if name in RULES:
        return name
    kind = name.replace("-", "_")
    return kind if kind in KINDS else None


@dataclass(frozen=True)
class Notify:
    """Where `notify` goes: a command run with the decision as JSON on stdin, or a URL the
    decision is POSTed to."""

    command: tuple[str, ...] = ()
    url: str | None = None


@dataclass(frozen=True)
class Policy:
    """One `[[policy]]` entry. `number` is its place in the file from 1 ("by policy N")."""

    number: int
    when: str
    after_s: float
    do: tuple[str, ...]
    notify: Notify | None = None

    def matches(self, finding: Finding) -> bool:
        return self.when in (finding.rule, finding.kind)

    @property
    def summary(self) -> str:
        return f"when {self.when} held {format_duration(self.after_s)}: {' + '.join(self.do)}"


@dataclass(frozen=True)
class Limits:
    """How much the policies may do. Past a limit a policy gives up on that finding (said in
    the journal) instead of trying again: no restart storm."""

    per_thread: int = 2  # policy runs on one thread ...
    per_thread_period_s: float = 3600.0  # ... within this long
    per_hour: int = 10  # policy runs on all threads within any hour
    user_quiet_s: float = 300.0  # hold off a thread the user acted on from t3tui this recently


@dataclass(frozen=True)
class PolicySet:
    """The policies in force, their limits, and where they came from (a path or
    "recommended")."""

    policies: tuple[Policy, ...]
    limits: Limits = field(default_factory=Limits)
    source: str = "recommended"

    def __len__(self) -> int:
        return len(self.policies)
