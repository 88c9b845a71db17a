"""The journal: every decision a policy made (acted, dry-run, skipped and why) and what the
stream confirmed, in one shape for the screen, `watch --ndjson`, the recording and the triage
report ("by policy N").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Final, Literal

from t3tui.protocol import format_ts

Verdict = Literal["act", "dry-run", "skip"]
# Skips that end the policy's interest in that finding occurrence (it never acts on it later):
# history is reported, not acted on; past a rate limit a policy gives up rather than retry.
FINAL_SKIPS: Final = frozenset({"history", "rate-thread", "rate-hour"})
# A run whose first action failed before sending anything (a read lost the connection): it
# does not close the occurrence, so the policy acts once the connection is back.
NOT_SENT: Final = "not-sent"
KEEP: Final = 2000  # decisions kept for display; the index that guards keeps every occurrence


@dataclass(frozen=True)
class Step:
    """One action of a run and what came of it (an `actions.Outcome`'s kind and text)."""

    action: str
    outcome: str  # ok / refused / not_confirmed / unknown / unavailable / dry-run / not-sent
    text: str
    sent: tuple[dict[str, Any], ...] = ()  # the commands, as sent (or as a dry run would send)

    def record(self) -> dict[str, Any]:
        return {"action": self.action, "outcome": self.outcome, "text": self.text,
                "sent": list(self.sent)}


@dataclass(frozen=True)
class Decision:
    """One decision of policy `policy` about one finding occurrence (`thread_id`, `rule`, first
    seen at `seen_at`). `code` is why in a word (due, history, rate-thread, rate-hour,
    user-acted, child-running, stale, not-synchronized, replay); `why` says it to a person."""

    policy: int
    thread_id: str
    rule: str
    kind: str
    seen_at: datetime
    at: datetime
    verdict: Verdict
    do: tuple[str, ...]
    code: str
    why: str
    title: str = ""
    steps: tuple[Step, ...] = ()
    done: bool = False  # its steps ran (or were planned, for a dry run)

    @property
    def key(self) -> tuple[int, str, str, datetime]:
        return (self.policy, self.thread_id, self.rule, self.seen_at)

    @property
    def result(self) -> str:
        """What came of a run in a word: the first step that was not ok, else ok."""
        if self.verdict != "act":
            return self.verdict
        if not self.done:
            return "pending"
        return next((s.outcome for s in self.steps if s.outcome != "ok"), "ok")

    def line(self) -> str:
        """One line for a person (watch's text output, the detail pane, the report)."""
        head = f"by policy {self.policy}: "
        if self.verdict == "skip":
            return head + f"skipped {' + '.join(self.do)} ({self.rule}): {self.why}"
        verb = ("would" if self.verdict == "dry-run" else "starting" if not self.done
                else "did" if self.result == "ok" else "tried")
        text = head + f"{verb} {' + '.join(self.do)} ({self.rule}, {self.why})"
        if self.steps:
            text += ": " + "; ".join(f"{s.action} {s.outcome}: {s.text}" for s in self.steps)
        return text

    def record(self) -> dict[str, Any]:
        """The JSON record (ndjson, the recording's `policy` note, the report)."""
        return {"kind": "policy", "policy": self.policy, "threadId": self.thread_id,
                "title": self.title, "rule": self.rule, "findingKind": self.kind,
                "seenAt": format_ts(self.seen_at), "at": format_ts(self.at),
                "verdict": self.verdict, "do": list(self.do), "code": self.code,
                "why": self.why, "result": self.result, "done": self.done,
                "steps": [s.record() for s in self.steps]}


class Journal:
    """Decisions in order, and the index the guards read: which occurrences a policy ran on or
    gave up on, which skips were already said, and when runs happened (rate limits)."""

    def __init__(self) -> None:
        self.entries: deque[Decision] = deque(maxlen=KEEP)
        self._codes: dict[tuple[int, str, str, datetime], set[str]] = {}
        self._runs: deque[tuple[datetime, str]] = deque()

    def __iter__(self) -> Iterator[Decision]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, decision: Decision) -> Decision:
        self.entries.append(decision)
        self._codes.setdefault(decision.key, set()).add(
            "ran" if decision.verdict != "skip" else decision.code)
        if decision.verdict != "skip":
            self._runs.append((decision.at, decision.thread_id))
        return decision

    def finish(self, decision: Decision, steps: tuple[Step, ...]) -> Decision:
        """The run's steps came to these outcomes: the entry is replaced by the finished one."""
        done = replace(decision, steps=steps, done=True)
        if done.result == NOT_SENT:  # it still counts for the rate limits (`_runs`)
            self._codes.get(decision.key, set()).discard("ran")
        for i, entry in enumerate(self.entries):
            if entry is decision:
                self.entries[i] = done
                break
        return done

    def closed(self, key: tuple[int, str, str, datetime]) -> bool:
        """The policy ran on this occurrence, or gave up on it for good."""
        codes = self._codes.get(key, ())
        return "ran" in codes or any(c in FINAL_SKIPS for c in codes)

    def said(self, key: tuple[int, str, str, datetime], code: str) -> bool:
        return code in self._codes.get(key, ())

    def runs_since(self, since: datetime, thread_id: str | None = None) -> int:
        return sum(1 for at, thread in self._runs
                   if at > since and (thread_id is None or thread == thread_id))

    def prune(self, before: datetime) -> None:
        """Runs older than every rate-limit window no longer count."""
        while self._runs and self._runs[0][0] <= before:
            self._runs.popleft()

    def about(self, thread_id: str) -> list[Decision]:
        """This thread's decisions, newest last (the detail pane)."""
        return [d for d in self.entries if d.thread_id == thread_id]


def window(now: datetime, seconds: float) -> datetime:
    return now - timedelta(seconds=seconds)
