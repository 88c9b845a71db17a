"""The rules in the order they run, what each reads, and which of them an own-facts change
can affect (issue 25: rules a fact cannot affect are skipped).

Every rule is marked with `common.declares`: the `ThreadContext` attributes it reads, dotted
into `own`/`parent`/`task` (`tests/model/test_rule_dependencies.py` runs each rule over every
fixture's threads and fails when it reads anything it did not declare). A kept row whose
thread's own facts changed in fields none of a rule's inputs come from (and which had no
finding: such rows are derived afresh, `Derivation._patch`) gets the same answer from that
rule as before, which was none: the rule is not run again. Nor when the only own facts of
its inputs that changed are times its declaration says can only quiet it by moving later
(`declares(quiets=...)`: a run's progress time), and they moved later (`later`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime

from t3tui.model.config import DetectorConfig
from t3tui.model.context import ThreadContext
from t3tui.model.detectors.delivery import undelivered_result, wake_disposed
from t3tui.model.detectors.duplicates import duplicate_child
from t3tui.model.detectors.interrupts import interrupt_not_landed, provider_active_after_interrupt
from t3tui.model.detectors.phantom import phantom_findings
from t3tui.model.detectors.proof import provider_finished_unheard
from t3tui.model.detectors.serialized import serialized_findings
from t3tui.model.detectors.stuck import (
    checkin_unanswered,
    drain_too_long,
    no_progress,
    provider_finished,
    session_detached,
    session_stopped,
)
from t3tui.model.facts import OwnFacts, TaskFacts
from t3tui.model.findings import Finding

# Not an own fact: in a patch's changed names, the thread's task row in its parent changed
# (`TreeIndex.retask`); the rules reading `task.*` run again.
TASK_ROW = "@task"

# Appended to the name of an own time that moved later (both set) in a patch's changed
# names: only the rules reading it that it does not quiet (`declares(quiets=...)`) run again.
LATER = ">"

Rule = Callable[[ThreadContext, DetectorConfig, datetime], list[Finding]]

# (rule, silenced while the thread waits for a human): the order of the families in
# `model/detectors` (stuck, proof, interrupts, delivery, serialized, phantom, duplicates)
RULES: tuple[tuple[Rule, bool], ...] = (
    (provider_finished, True), (drain_too_long, True), (session_detached, True),
    (session_stopped, True), (checkin_unanswered, True), (no_progress, True),
    (provider_finished_unheard, True),
    (interrupt_not_landed, True), (provider_active_after_interrupt, False),
    (undelivered_result, False), (wake_disposed, False),
    (serialized_findings, False), (phantom_findings, False), (duplicate_child, False),
)

# Rules whose first test finds nothing for a thread with no active run (`own.activity` is
# None), and rules whose first test finds nothing for a thread with no task row in a parent:
# left out of such a thread's plan (most threads of a big tree are both; most threads are
# the two below too, so a running thread's new provider turn runs neither).
# tests/model/test_rule_dependencies.py holds every fixture's such threads to it.
NEEDS_RUN: frozenset[Rule] = frozenset({
    provider_finished, drain_too_long, session_detached, session_stopped, no_progress,
    provider_finished_unheard, interrupt_not_landed})
NEEDS_TASK: frozenset[Rule] = frozenset({undelivered_result, wake_disposed})
# Rules whose first test finds nothing for a thread whose stream is not held (no projection:
# no task rows, mentions, claims, dead waits or runaway; `own.subscribed` is False), most
# threads of a big tree: left out of such a thread's plan too (the same test holds them).
NEEDS_STREAM: frozenset[Rule] = frozenset({
    provider_active_after_interrupt, serialized_findings, phantom_findings, duplicate_child})
# ... with no provider record read for the thread (`ThreadContext.provider_record`), and with
# no runaway (`own.runaway`: the latest run ended interrupted while provider parts still run)
NEEDS_RECORD: frozenset[Rule] = frozenset({provider_finished_unheard})
NEEDS_RUNAWAY: frozenset[Rule] = frozenset({provider_active_after_interrupt})

# The context's attributes that `Assembler.context` computes from the thread's own facts:
# the own facts each is built from (tests/model/test_rule_dependencies.py checks the builder
# reads no other own fact). The tree parts (its children, whether they are busy) change
# only with a full derivation, never a patch.
CONTEXT_SOURCES: dict[str, frozenset[str]] = {
    "blocked_on": frozenset({"tasks", "task_index", "active_run_id"}),
    "busy_children": frozenset({"task_index"}),    # a child with no record: its task row
    "orphaned_children": frozenset({"task_index", "cohorts"}),
    "undelivered_children": frozenset({"tasks"}),
    "detaches": frozenset({"id", "title", "run_session_ids", "session_attached_at"}),
}


def own_inputs(rule: Rule, gated: bool) -> frozenset[str]:
    """The own facts (field names) a rule's answer can depend on, its gate included; and
    each one's name with `LATER` unless its moving later quiets the rule."""
    out = {"pending"} if gated else set()
    quiets = rule.quiets  # type: ignore[attr-defined]
    for dep in rule.depends:  # type: ignore[attr-defined]
        head, _, field = dep.partition(".")
        if head == "own":
            out.add(field)
            if field not in quiets:
                out.add(field + LATER)
        elif head == "task":
            out.add(TASK_ROW)  # the thread's task row in its parent (`TreeIndex.retask`)
        else:
            out |= CONTEXT_SOURCES.get(head, frozenset())
    return frozenset(out)


INPUTS: tuple[tuple[Rule, bool, frozenset[str]], ...] = tuple(
    (rule, gated, own_inputs(rule, gated)) for rule, gated in RULES)

# the own times some rule is quieted by: the only names `later` ever marks
QUIETING: frozenset[str] = frozenset().union(*(rule.quiets for rule, _ in RULES))  # type: ignore[attr-defined]


def later(before: OwnFacts, after: OwnFacts, changed: list[str]) -> list[str]:
    """`changed` (own fact names) with `LATER` appended to each quieting time that moved
    from one time to a later one: what a patch's rule plan is worked out from."""
    if QUIETING.isdisjoint(changed):
        return changed
    out = []
    for name in changed:
        if name in QUIETING:
            old, new = getattr(before, name), getattr(after, name)
            if old is not None and new is not None and new > old:
                name += LATER
        out.append(name)
    return out


# the rules to run, by (waiting for a human, no active run, no task row, no stream, no
# provider record, no runaway, the own facts that changed or None for all): worked out once
# per such key, not per rule per row (a frame and a tree ask the same few keys)
_Key = tuple[bool, bool, bool, bool, bool, bool, "tuple[str, ...] | None"]
_PLANS: dict[_Key, tuple[Rule, ...]] = {}
_PLANS_MAX = 512


def _plan(key: _Key) -> tuple[Rule, ...]:
    waiting, idle, taskless, streamless, unrecorded, tame, changed = key
    plan = tuple(rule for rule, gated, inputs in INPUTS
                 if not (gated and waiting)
                 and not (idle and rule in NEEDS_RUN)
                 and not (taskless and rule in NEEDS_TASK)
                 and not (streamless and rule in NEEDS_STREAM)
                 and not (unrecorded and rule in NEEDS_RECORD)
                 and not (tame and rule in NEEDS_RUNAWAY)
                 and (changed is None or not inputs.isdisjoint(changed)))
    if len(_PLANS) >= _PLANS_MAX:
        _PLANS.clear()  # many distinct sets of changed facts: start over, never grow
    _PLANS[key] = plan
    return plan


def planned(own: OwnFacts, task: TaskFacts | None, changed: Collection[str] | None = None,
            recorded: bool = False) -> tuple[Rule, ...]:
    """The rules `run_rules` runs for a thread with these own facts and task row (and, with
    `recorded`, a provider record read)."""
    key = (own.pending is not None, own.activity is None, task is None, not own.subscribed,
           not recorded, own.runaway is None, None if changed is None else tuple(changed))
    plan = _PLANS.get(key)
    return plan if plan is not None else _plan(key)


def run_rules(ctx: ThreadContext, config: DetectorConfig, now: datetime,
              changed: Collection[str] | None = None) -> list[Finding]:
    """Every rule's findings, unranked. With `changed` (the own facts that changed since a
    derivation in which no rule found anything), only the rules reading one of them run."""
    out: list[Finding] = []
    for rule in planned(ctx.own, ctx.task, changed, ctx.provider_record is not None):
        found = rule(ctx, config, now)
        if found:
            out.extend(found)
    return out


__all__ = ["CONTEXT_SOURCES", "INPUTS", "LATER", "NEEDS_RECORD", "NEEDS_RUN", "NEEDS_RUNAWAY",
           "NEEDS_STREAM", "NEEDS_TASK", "QUIETING", "RULES", "TASK_ROW", "later", "planned",
           "run_rules"]
