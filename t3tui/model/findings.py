"""Findings: what a detector reports, its kinds, rules and ranking."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

# kinds
STUCK: Final = "stuck"
SERIALIZED_WAIT: Final = "serialized_wait"
PHANTOM_CHILD: Final = "phantom_child"
UNDELIVERED_RESULT: Final = "undelivered_result"
ORPHANED_DELIVERY: Final = "orphaned_delivery"
# the provider's own record says the turn ended; T3 still shows it running (T3 never heard)
PROVIDER_FINISHED_UNHEARD: Final = "provider_finished_unheard"
# kinds that make a thread `stuck`
STUCK_KINDS: Final = frozenset({STUCK, PROVIDER_FINISHED_UNHEARD})
RUNAWAY_PROVIDER: Final = "runaway_provider"
DUPLICATE_CHILD: Final = "duplicate_child"

# rule name -> rank (lower is stronger), after delegation.md §7
RULE_RANK: Final[dict[str, int]] = {
    "provider-finished-unheard": 5,
    "provider-finished-run-running": 10,
    "drain-too-long": 11,
    "session-detached-by-other": 20,
    "interrupt-not-landed": 15,
    "provider-session-stopped": 21,
    "checkin-unanswered": 25,
    "no-progress": 30,
    "undelivered-result": 50,
    "wake-disposed-while-running": 60,
    "provider-active-after-interrupt": 62,
    "duplicate-child": 72,
    "serial-arrival": 70,
    "claimed-not-real": 71,
}


@dataclass(frozen=True)
class Finding:
    """One detector verdict. `evidence` holds JSON-able facts; `since` is when it began."""

    kind: str
    thread_id: str
    rule: str
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    since: datetime | None = None

    @property
    def rank(self) -> int:
        return RULE_RANK.get(self.rule, 99)

    @property
    def key(self) -> tuple[str, str, str]:
        """Identity across views (for change detection)."""
        return (self.kind, self.thread_id, self.rule)


def rank_findings(findings: list[Finding]) -> list[Finding]:
    """Strongest first; stable for equal ranks."""
    return sorted(findings, key=lambda f: f.rank)
