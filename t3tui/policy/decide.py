"""What the policies do now: a pure function of the findings (with their first-seen moments),
the clock, the connection, the user's own recent actions and the journal.

Guards, in order, for each policy whose finding has held `after` since t3tui first saw it:
1. once per finding occurrence (a run, or a final skip, closes it; a run that sent nothing
   because a read it needed lost the connection does not: `journal.NOT_SENT`);
2. history (began before t3tui was watching): reported, never acted on (final);
3. a replay or post-mortem, a stale connection, t3tui itself just resumed from a pause
   (`resume.Resume`), a stream not yet `synchronized`: held;
4. the tree: a finding that says the thread is silent, paused or finished while a descendant
   of it still runs or waits (`tree.EXPLAINED_BY_TREE`, T3 #5518): held, the child explains it;
5. the user acted on the thread from t3tui within `user_quiet`: held;
6. rate limits, per thread within `per_thread_period` and on all threads within an hour: past
   one the policy gives up on that occurrence and says so (final), it never retries in a loop.
A held skip is journaled once per occurrence and reason; the policy is asked again later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from t3tui.model.labels import clock
from t3tui.policy.journal import Decision, Journal, window
from t3tui.policy.occurrences import Seen
from t3tui.policy.spec import Limits, Policy, PolicySet, format_duration
from t3tui.policy.tree import EXPLAINED_BY_TREE, Below

BusyBelow = Callable[[str], Below | None]

HOUR_S = 3600.0


@dataclass(frozen=True)
class Situation:
    """Where the policies stand: `live` (connected, not stale), `synchronized` (every stream
    caught up), `replay` (a replay or a post-mortem: never act), `dry_run` (plan only)."""

    live: bool
    synchronized: bool
    replay: bool = False
    dry_run: bool = False
    fresh: bool = True  # False just after t3tui itself was paused (`resume.Resume`)


def _hold(situation: Situation, seen: Seen) -> tuple[str, str] | None:
    if situation.replay:
        return "replay", "a replay or post-mortem: policies never act on one"
    if not situation.live:
        return "stale", "the connection is not live (what t3tui shows may be stale)"
    if not situation.fresh:
        return "resumed", ("t3tui itself was paused (a suspend?): what it shows is from before "
                           "the pause, waiting for fresh facts from the server")
    if not situation.synchronized or not seen.synchronized:
        return "not-synchronized", "the stream has not caught up yet (synchronized)"
    return None


def _judge(policy: Policy, item: Seen, key: tuple[int, str, str, datetime], now: datetime,
           limits: Limits, situation: Situation, user_acted: Mapping[str, datetime],
           journal: Journal, busy_below: BusyBelow) -> tuple[str, str, str] | None:
    """(verdict, code, why) for a policy whose dwell has passed, or None: nothing to say."""
    thread = item.thread_id
    held = _hold(situation, item)
    if item.history:
        return "skip", "history", "it began before t3tui was watching: reported, not acted on"
    if held is not None:
        return None if journal.said(key, held[0]) else ("skip", *held)
    below = busy_below(thread) if item.finding.rule in EXPLAINED_BY_TREE else None
    if below is not None:
        return None if journal.said(key, "child-running") else ("skip", "child-running",
                                                                below.why())
    acted = user_acted.get(thread)
    if acted is not None and now - acted < timedelta(seconds=limits.user_quiet_s):
        if journal.said(key, "user-acted"):
            return None
        return ("skip", "user-acted", f"you acted on this thread from t3tui at {clock(acted)} "
                f"(policies wait {format_duration(limits.user_quiet_s)})")
    if journal.runs_since(window(now, limits.per_thread_period_s), thread) >= limits.per_thread:
        return ("skip", "rate-thread", f"gave up: {limits.per_thread} policy run(s) on this "
                f"thread within {format_duration(limits.per_thread_period_s)}")
    if journal.runs_since(window(now, HOUR_S)) >= limits.per_hour:
        return "skip", "rate-hour", f"gave up: {limits.per_hour} policy run(s) within the hour"
    held_s = (now - item.first_seen).total_seconds()
    return ("dry-run" if situation.dry_run else "act", "due",
            f"held {format_duration(held_s)}, after = {format_duration(policy.after_s)}")


def decide(
    policies: PolicySet,
    seen: Iterable[Seen],
    now: datetime,
    situation: Situation,
    user_acted: Mapping[str, datetime],
    journal: Journal,
    titles: Mapping[str, str] | None = None,
    busy_below: BusyBelow = lambda _t: None,
) -> list[Decision]:
    """The decisions to take now, already added to `journal` (callers run the `act` ones and
    `journal.finish` them). `busy_below(thread)`: its nearest descendant still at work. Oldest occurrence first, then by policy number."""
    limits = policies.limits
    out: list[Decision] = []
    journal.prune(window(now, max(HOUR_S, limits.per_thread_period_s)))
    for item in sorted(seen, key=lambda s: (s.first_seen, s.thread_id, s.finding.rule)):
        finding = item.finding
        for policy in policies.policies:
            if not policy.matches(finding):
                continue
            key = (policy.number, finding.thread_id, finding.rule, item.first_seen)
            if journal.closed(key) or now - item.first_seen < timedelta(seconds=policy.after_s):
                continue
            judged = _judge(policy, item, key, now, limits, situation, user_acted, journal,
                            busy_below)
            if judged is None:
                continue
            verdict, code, why = judged
            out.append(journal.add(Decision(
                policy.number, finding.thread_id, finding.rule, finding.kind, item.first_seen,
                now, verdict, policy.do, code, why,  # type: ignore[arg-type]
                (titles or {}).get(finding.thread_id, ""))))
    return out
