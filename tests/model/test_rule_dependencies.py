"""Each rule reads only what it declares (issue 25: rules a fact cannot affect are skipped).

The incremental model skips a rule when none of the facts it declares changed
(`model/detectors/rules.py`); a rule that reads an undeclared fact would then keep a stale
answer. Here every rule runs over the context of every thread of every fixture, at moments
through each fixture and past its dwells (default and short dwells), with the context and its
own/parent/task facts wrapped in recorders: what a rule read must be in its declaration.
"""

from __future__ import annotations

import dataclasses
import types
from dataclasses import fields
from datetime import timedelta

import pytest

from t3tui.model import Supervisor
from t3tui.model.context import ThreadContext
from t3tui.model.detectors.rules import (
    CONTEXT_SOURCES,
    NEEDS_RECORD,
    NEEDS_RUN,
    NEEDS_RUNAWAY,
    NEEDS_STREAM,
    NEEDS_TASK,
    QUIETING,
    RULES,
    run_rules,
)
from t3tui.model.factpatch import replaced
from t3tui.model.facts import OwnFacts
from t3tui.model.findings import rank_findings
from t3tui.model.shellfacts import shell_only_facts
from t3tui.model.states import OWN_READS, derive
from tests.model.replay import feed, frame_time
from tests.model.test_incremental import CONFIGS, FIXTURES, _frames, _samples

_DOTTED = ("own", "parent", "task")


class Recorder:
    """Stands in for a frozen dataclass and notes every field read through it (properties
    and methods run against the recorder, so the fields they read are noted too)."""

    def __init__(self, target: object, prefix: str, reads: set[str]) -> None:
        object.__setattr__(self, "_t", target)
        object.__setattr__(self, "_p", prefix)
        object.__setattr__(self, "_r", reads)

    def __getattr__(self, name: str):
        target, prefix, reads = self._t, self._p, self._r
        attr = getattr(type(target), name, None)
        if isinstance(attr, property):
            return attr.fget(self)
        if isinstance(attr, types.FunctionType):
            return types.MethodType(attr, self)
        value = getattr(target, name)
        if prefix == "" and name in _DOTTED:  # declared by what is read of it
            return Recorder(value, f"{name}.", reads) if value is not None else None
        reads.add(f"{prefix}{name}")
        return value


def _settled():
    """(fixture, config, now, supervisor, assembly) at every sampled moment of every fixture."""
    for config in CONFIGS:
        for name in FIXTURES:
            frames = _frames(name)
            sup = Supervisor(config)
            i = 0
            for now in _samples(frames, config)[::3]:
                while i < len(frames) and (frame_time(frames[i]) or now) <= now:
                    feed(sup, [frames[i]])
                    i += 1
                yield name, config, now, sup, sup._settle(now)


def _contexts():
    """(fixture, config, now, context) for every shown thread at every sampled moment."""
    for name, config, now, _, asm in _settled():
        for thread_id, _ in asm.tree():
            yield name, config, now, asm.context(thread_id)


@pytest.fixture(scope="module")
def contexts() -> list:
    return list(_contexts())


def _streamless():
    """Every shown thread with a stream and a shell row, as its context would read had its
    stream not been held: its facts from the shell row alone (running threads among them,
    whose progress only their stream would have told)."""
    for name, config, now, sup, asm in _settled():
        for thread_id, _ in asm.tree():
            rec = sup._ix.records[thread_id]
            if rec.shell and rec.proj is not None:
                own = shell_only_facts(thread_id, rec.shell, rec.location)
                yield name, config, now, dataclasses.replace(asm.context(thread_id), own=own)


def _ids(rule_gated) -> str:
    return rule_gated[0].__name__


@pytest.mark.parametrize("rule_gated", RULES, ids=_ids)
def test_a_rule_reads_only_what_it_declares(rule_gated, contexts) -> None:
    rule, _ = rule_gated
    declared = rule.depends
    fired = 0
    read: set[str] = set()
    for name, config, now, ctx in contexts:
        reads: set[str] = set()
        fired += bool(rule(Recorder(ctx, "", reads), config, now))
        undeclared = reads - declared
        assert not undeclared, f"{rule.__name__} read {sorted(undeclared)} ({name} at {now})"
        read |= reads
    # the declaration names real attributes, and nothing it does not read on some fixture
    # beyond what a path no fixture takes reads (a stale declaration costs only speed)
    ctx_fields = {f.name for f in fields(ThreadContext)}
    own_fields = {f.name for f in fields(OwnFacts)}
    for dep in declared:
        head, _, tail = dep.partition(".")
        assert head in ctx_fields, f"{rule.__name__} declares {dep}: no such context attribute"
        if head in ("own", "parent"):
            assert tail in own_fields, f"{rule.__name__} declares {dep}: no such fact"
        assert head not in _DOTTED or tail, f"{rule.__name__} declares all of {head}"
    assert read, f"{rule.__name__} read nothing: it ran on no context"
    assert fired or rule.__name__ in _NEVER_FIRES_ON_FIXTURES


# rules no stream fixture makes fire (their unit tests in test_detectors.py do): here only
# their quiet paths are checked
_NEVER_FIRES_ON_FIXTURES = {"checkin_unanswered", "provider_finished_unheard",
                            "interrupt_not_landed", "duplicate_child"}


def test_every_context_attribute_a_rule_reads_maps_to_own_facts() -> None:
    """What a patch can change of a context is its own facts and what is built from them:
    every context attribute a rule declares is either an own fact, one the index touches the
    thread for when it changes (a full derivation, never a patch; the task row: a patch that
    runs the rules reading `task.*`, `rules.TASK_ROW`), or built from own facts named in
    CONTEXT_SOURCES."""
    touched = {"parent", "task", "checkin", "checkin_verdict", "task_known", "provider_record",
               "protocol_log", "sent_interrupt"}
    for rule, _ in RULES:
        for dep in rule.depends:
            head = dep.partition(".")[0]
            assert head == "own" or head in touched or head in CONTEXT_SOURCES, \
                f"{rule.__name__} declares {dep}: not known how a patch changes it"


def test_the_context_builder_reads_only_the_own_facts_it_is_said_to(contexts) -> None:
    """`Assembler.context` builds blocked_on, detaches and the child counts from the thread's
    own facts named in CONTEXT_SOURCES (and the id and facts it looks up by): nothing else."""
    allowed = set().union(*CONTEXT_SOURCES.values())
    seen: set[str] = set()
    for config in CONFIGS[:1]:
        for name in FIXTURES:
            sup = Supervisor(config)
            feed(sup, _frames(name))
            now = max(t for fr in _frames(name) if (t := frame_time(fr)) is not None)
            asm = sup._settle(now)
            real_own = asm.ix.own
            for thread_id, _ in asm.tree():
                reads: set[str] = set()

                def own(tid, _real=real_own, _id=thread_id, _reads=reads):
                    facts = _real(tid)
                    return Recorder(facts, "", _reads) if tid == _id else facts

                asm.ix.own = own  # type: ignore[method-assign]
                try:
                    asm.context(thread_id)
                finally:
                    del asm.ix.own
                seen |= reads
                assert reads <= allowed | {"has_record"}, \
                    f"context of {thread_id} ({name}) read {sorted(reads - allowed)}"
    assert seen, "no context was built"


def test_a_rule_left_out_of_a_plan_finds_nothing_there(contexts) -> None:
    """`run_rules` leaves the NEEDS_RUN rules out for a thread with no active run, the
    NEEDS_TASK rules out for one with no task row, the NEEDS_STREAM rules out for one whose
    stream is not held, NEEDS_RECORD for one with no provider record and NEEDS_RUNAWAY for
    one with no runaway: on every such context of every fixture (default and short dwells,
    moments past them), and of each streamed thread read from its shell row alone, each of
    them finds nothing."""
    gates = ((NEEDS_RUN, lambda ctx: ctx.own.activity is None),
             (NEEDS_TASK, lambda ctx: ctx.task is None),
             (NEEDS_STREAM, lambda ctx: not ctx.own.subscribed),
             (NEEDS_RECORD, lambda ctx: ctx.provider_record is None),
             (NEEDS_RUNAWAY, lambda ctx: ctx.own.runaway is None))
    shut = [0] * len(gates)
    for name, config, now, ctx in (*contexts, *_streamless()):
        for i, (rules, closed) in enumerate(gates):
            if closed(ctx):
                shut[i] += 1
                for rule in rules:
                    assert rule(ctx, config, now) == [], f"{rule.__name__} on {ctx.own.id} ({name})"
    assert all(shut), shut


def test_the_state_reads_only_the_own_facts_it_is_said_to(contexts) -> None:
    """`states.derive` reads of a thread's own facts only those OWN_READS names (a patch
    that moved none of them and ran no rule keeps the row's state: `Assembler.patch_row`),
    on every context of every fixture, with the findings its rules give there."""
    own_fields = {f.name for f in fields(OwnFacts)}
    assert own_fields >= OWN_READS
    seen: set[str] = set()
    for name, config, now, ctx in contexts:
        reads: set[str] = set()
        derive(Recorder(ctx, "", reads), rank_findings(run_rules(ctx, config, now)))
        own = {r.removeprefix("own.") for r in reads if r.startswith("own.")}
        assert own <= OWN_READS, f"derive read own {sorted(own - OWN_READS)} ({name} at {now})"
        seen |= own
    assert seen, "derive read no own fact: it ran on no context"


@pytest.mark.parametrize("rule_gated", [r for r in RULES if r[0].quiets], ids=_ids)
def test_a_time_that_quiets_a_rule_moved_later_brings_no_finding(rule_gated, contexts) -> None:
    """A patch whose own time moved later runs no rule that time quiets (`declares(quiets=)`):
    on every context of every fixture where such a rule finds nothing and the time is set,
    the time moved later (a millisecond, the rule's dwell, to `now`, a day past it), all of
    the rule's quieting times at once too, the rule still finds nothing."""
    rule, _ = rule_gated
    checked = 0
    for name, config, now, ctx in contexts:
        if rule(ctx, config, now):
            continue
        dwell = timedelta(seconds=getattr(config, rule.dwell)) if rule.dwell else timedelta(0)
        times = [t for t in sorted(rule.quiets) if getattr(ctx.own, t) is not None]
        for moved in [[t] for t in times] + ([times] if len(times) > 1 else []):
            for step in (timedelta(milliseconds=1), dwell, None, timedelta(days=1)):
                ms = timedelta(milliseconds=1)
                changes = {t: max(now, getattr(ctx.own, t) + ms) if step is None
                           else getattr(ctx.own, t) + max(step, ms) for t in moved}
                own = replaced(ctx.own, **changes)
                got = rule(dataclasses.replace(ctx, own=own), config, now)
                assert got == [], f"{rule.__name__}: {changes} found {got} ({name} at {now})"
                checked += 1
    assert checked, f"{rule.__name__}: no quiet context had the time set"


def test_a_quieting_time_is_read_by_no_state_and_no_context_part() -> None:
    """A patch names a time that moved later with `LATER` (for its rule plan); the state's
    and the context parts' checks read the plain names, so none of them reads such a time."""
    assert QUIETING, "no rule declares a quieting time"
    assert QUIETING.isdisjoint(OWN_READS)
    assert QUIETING.isdisjoint(set().union(*CONTEXT_SOURCES.values()))
