"""What a frame does for a thread that changed: as little as gives the same row.

Correctness is the property tests' (tests/model/test_one_truth.py, test_patched_rows.py,
test_incremental.py: incremental == fresh whatever the stream and the asking cadence). Here,
on the load `benchmarks/` measures, that the cheap paths are the ones taken: a child whose
task row in its parent moved is patched, not derived afresh, and a patch reuses its context's
parts when none of the facts they come from changed. Each row still equals a fresh one.
"""

from __future__ import annotations

import pytest

from benchmarks.scaling import loaded
from benchmarks.world import T0, WorldSpec, build_world
from t3tui.model import Supervisor, derivation
from t3tui.model.assemble import Assembler
from t3tui.model.derivation import Derivation
from t3tui.model.detectors.rules import LATER
from t3tui.model.factpatch import changed_fields
from t3tui.model.facts import OwnFacts
from t3tui.model.rows import ThreadRow
from tests.spy import calls


def _pair(threads: int = 120, events: int = 400):
    world = build_world(WorldSpec(threads=threads, events=events))
    sup, ref = loaded(world), Supervisor(incremental=False)
    ref.apply_shell(world.shell_snapshot)
    ref.apply_shell({"kind": "synchronized"})
    for thread_id, item in world.thread_snapshots.items():
        ref.apply_thread(thread_id, item)
        ref.apply_thread(thread_id, {"kind": "synchronized"})
    return world, sup, ref


def _apply(sup: Supervisor, stream: str | None, item: dict) -> None:
    if stream is None:
        sup.apply_shell(item)
    else:
        sup.apply_thread(stream, item)


def _same_as_fresh(changed: dict, ref: Supervisor, now) -> None:
    """Every changed row equals the fresh reference's, child counts included."""
    for thread_id, got in changed.items():
        want = ref.row(thread_id, now)
        assert got == want and (got is None or got.child_counts == want.child_counts)


def _burst_as_fresh(world, sup: Supervisor, ref: Supervisor) -> None:
    """The burst item by item into both, a frame after each, its rows held to the fresh's."""
    for stream, item in world.burst:
        _apply(sup, stream, item)
        _apply(ref, stream, item)
        _same_as_fresh(sup.changed_rows(world.end), ref, world.end)


def test_a_child_whose_task_row_moved_is_patched_not_derived_afresh(monkeypatch) -> None:
    world, sup, ref = _pair()
    afresh: list[str] = calls(monkeypatch, Assembler, "row",
                              lambda self, thread_id, depth: thread_id)
    task_moves = 0
    for stream, item in world.burst:
        _apply(sup, stream, item)
        _apply(ref, stream, item)
        event = item.get("event") or {}
        moved = event.get("type") == "subagent.updated"
        child = event.get("payload", {}).get("childThreadId") if moved else None
        afresh.clear()
        changed = sup.changed_rows(world.end)
        if child is not None:
            task_moves += 1
            assert child not in afresh, f"{child} derived afresh for its task row"
        _same_as_fresh(changed, ref, world.end)
    assert task_moves > 10


def test_a_patch_reuses_the_context_parts_nothing_it_changed_built(monkeypatch) -> None:
    world, sup, ref = _pair()
    built = reused = 0
    real = Assembler.context

    def context(self, thread_id, kept=None):
        nonlocal built, reused
        if self.ix is not sup._ix:
            pass  # the reference's
        elif kept is None:
            built += 1
        else:
            reused += 1
        return real(self, thread_id, kept)

    monkeypatch.setattr(Assembler, "context", context)
    _burst_as_fresh(world, sup, ref)
    # most of a burst's patches that build a context move task rows and run times: not the
    # tasks, sessions or children its parts are built from (a parent's task rows are; a
    # patch that moved only progress, or a running thread's provider turn, builds none)
    assert reused > 2 * built, (reused, built)


# a tree whose first pass keeps no context parts with its rows (`derivation._KEEP_PARTS`)
_BIG = derivation._KEEP_PARTS + 200


@pytest.mark.parametrize("threads", [120, _BIG])
def test_a_patch_that_moved_only_shown_facts_runs_no_rule_and_no_state(monkeypatch,
                                                                        threads) -> None:
    """An idle thread whose preview and shell time moved (most of a burst's patches): no rule
    its plan holds and nothing its state is derived from read them, so the patch builds no
    context and derives no state; it only takes the new fields. Also in a tree whose first
    pass kept no context parts with its rows: an idle leaf's are known without them."""
    world, sup, ref = _pair(threads)
    quiet = {"latest_message", "shell_updated_at"}
    patching: list[tuple[str, bool]] = []
    real_patch, real_derived = Assembler.patch_row, Assembler.derived
    derived_in_quiet = quiet_patches = 0

    def patch_row(self, old, changed, kept=None):
        nonlocal quiet_patches
        # (a time that moved later is named with `LATER`: for the rule plan)
        is_quiet = {c.removesuffix(LATER) for c in changed} <= quiet \
            and old.activity_run_status is None
        quiet_patches += is_quiet
        patching.append((old.id, is_quiet))
        try:
            return real_patch(self, old, changed, kept)
        finally:
            patching.pop()

    def derived(self, thread_id, changed=None, kept=None):
        nonlocal derived_in_quiet
        if patching and patching[-1] == (thread_id, True):
            derived_in_quiet += 1
        return real_derived(self, thread_id, changed, kept)

    monkeypatch.setattr(Assembler, "patch_row", patch_row)
    monkeypatch.setattr(Assembler, "derived", derived)
    _burst_as_fresh(world, sup, ref)
    assert quiet_patches > 20, quiet_patches
    assert derived_in_quiet == 0, (derived_in_quiet, quiet_patches)


def _derived_in_patches(monkeypatch, world, sup, ref, which) -> tuple[int, int]:
    """(patches `which(facts before, facts now, thread's row)` picks, derivations of a
    context and rules inside them) over the burst, every row held to the fresh one's."""
    real_patch, real_derived = Derivation._patch, Assembler.derived
    patching: list[tuple[str, bool]] = []
    derived_in = picked = 0

    def patch(self, asm, thread_id, old, facts_before, retask, *rest):
        nonlocal picked
        chosen = facts_before is not None and not retask \
            and which(facts_before, asm.ix.own(thread_id), old.row)
        picked += chosen
        patching.append((thread_id, chosen))
        try:
            return real_patch(self, asm, thread_id, old, facts_before, retask, *rest)
        finally:
            patching.pop()

    def derived(self, thread_id, changed=None, kept=None):
        nonlocal derived_in
        if patching and patching[-1] == (thread_id, True):
            derived_in += 1
        return real_derived(self, thread_id, changed, kept)

    monkeypatch.setattr(Derivation, "_patch", patch)
    monkeypatch.setattr(Assembler, "derived", derived)
    _burst_as_fresh(world, sup, ref)
    return picked, derived_in


def test_a_patch_that_moved_a_running_threads_provider_turn_runs_no_rule(monkeypatch) -> None:
    """A running thread's new provider turn (its progress time later, the turn's start moved;
    a tenth of a burst's patches): the two rules reading the turn's start find nothing with
    no provider record (`NEEDS_RECORD`) and no runaway (`NEEDS_RUNAWAY`), the rest are quieted
    by later progress: the patch builds no context and runs no rule."""
    world, sup, ref = _pair()

    def turn_moved(before, now, row) -> bool:
        return set(changed_fields(before, now)) == {"agent_progress_at", "provider_turn_started_at"} \
            and before.agent_progress_at is not None \
            and now.agent_progress_at > before.agent_progress_at and now.activity == "running"

    picked, derived_in = _derived_in_patches(monkeypatch, world, sup, ref, turn_moved)
    assert picked > 10, picked
    assert derived_in == 0, (derived_in, picked)


def test_a_patch_that_moved_only_a_running_threads_progress_later_runs_no_rule(monkeypatch) -> None:
    """A running thread whose progress time moved later and nothing else (a turn item: a
    third of a burst's patches): every rule reading it is quieted by later progress
    (`declares(quiets=...)`), and the kept row found nothing, so the patch builds no context
    and runs no rule; it takes the new fields (the last activity time)."""
    world, sup, ref = _pair()

    def progress_later(before, now, row) -> bool:
        return changed_fields(before, now) == ["agent_progress_at"] \
            and before.agent_progress_at is not None \
            and now.agent_progress_at > before.agent_progress_at and now.activity == "running"

    picked, derived_in = _derived_in_patches(monkeypatch, world, sup, ref, progress_later)
    assert picked > 20, picked
    assert derived_in == 0, (derived_in, picked)


def test_a_patch_compares_only_the_facts_its_events_moved(monkeypatch) -> None:
    """A row patched after events whose fact patches name what they move (`factpatch`:
    a turn item moves the progress time, a task row the tasks) compares those facts of the
    thread with the ones its row was derived from, not all ~50 (a fifth of a patch)."""
    world, sup, ref = _pair()
    compared: list[int] = []
    real = derivation.changed_fields

    def spied(old, new, names=None):
        compared.append(len(old.__dict__) if names is None else len(names))
        return real(old, new) if names is None else real(old, new, names)

    monkeypatch.setattr(derivation, "changed_fields", spied)
    _burst_as_fresh(world, sup, ref)
    assert len(compared) > 100, len(compared)
    every = len(OwnFacts.__dataclass_fields__)
    assert sum(n < every for n in compared) > 0.9 * len(compared), compared
    assert sum(compared) < 0.4 * every * len(compared), sum(compared) / len(compared)


def test_a_pass_looks_a_threads_task_row_up_once(monkeypatch) -> None:
    """A thread's task row in its parent (`Assembler.task_of`: four lookups and the parent's
    facts) is the same all through one pass: a patch that builds a context asked for it
    twice (the row's task, the context's), now once per pass."""
    world, sup, ref = _pair()
    # the lookup itself (before the pass kept them, `task_of` was the lookup)
    work = "_task_of" if hasattr(Assembler, "_task_of") else "task_of"
    # (the pass itself, not its id: a later pass may take a freed one's address)
    looked: list[tuple[Assembler, str]] = calls(monkeypatch, Assembler, work,
                                                lambda self, thread_id: (self, thread_id))
    _burst_as_fresh(world, sup, ref)
    assert len(looked) > 100, len(looked)
    twice = len(looked) - len(set(looked))
    assert twice == 0, f"{twice} of {len(looked)} task row lookups repeated one of the same pass"


def test_a_frame_tells_a_changed_row_without_the_rows_field_tuples(monkeypatch) -> None:
    """Whether a patched row changed (`rowcache.same_row`, every row of every frame) is its
    fields' dict compared with the kept row's, the child counts with them: not the frozen
    dataclass's `__eq__`, which builds a tuple of 26 fields for each of the two rows."""
    world, sup, ref = _pair()
    in_frame = [False]
    compared = 0
    real_eq, real_changed = ThreadRow.__eq__, sup.changed_rows

    def eq(self, other):
        nonlocal compared
        compared += in_frame[0]
        return real_eq(self, other)

    def changed_rows(now):
        in_frame[0] = True
        try:
            return real_changed(now)
        finally:
            in_frame[0] = False

    monkeypatch.setattr(ThreadRow, "__eq__", eq)
    monkeypatch.setattr(sup, "changed_rows", changed_rows)
    _burst_as_fresh(world, sup, ref)
    assert compared == 0, f"{compared} rows compared field tuple by field tuple in frames"


def test_a_full_views_walk_reads_a_threads_kept_facts_not_a_call_per_thread(monkeypatch) -> None:
    # the view right after a first tree's pass walks every thread: whether it is shown and its
    # place read the kept facts directly; `visible` and `_order_key` are asked only for what
    # the kept facts do not answer (a parent's visibility, a task-row placeholder)
    world = build_world(WorldSpec(threads=300, events=0))
    sup = Supervisor()
    sup.apply_shell(world.shell_snapshot)
    sup.apply_shell({"kind": "synchronized"})
    sup.changed_rows(T0)
    asked = calls(monkeypatch, Assembler, "visible", lambda _asm, t: t)
    keyed = calls(monkeypatch, Assembler, "_order_key", lambda _asm, t: t)
    view = sup.view(T0)
    asked, keyed = list(asked), list(keyed)  # (the fresh view below is not this one's work)
    assert len(view.rows) == 300
    fresh = Supervisor(incremental=False)
    fresh.apply_shell(world.shell_snapshot)
    fresh.apply_shell({"kind": "synchronized"})
    assert [r.id for r in view.rows] == [r.id for r in fresh.view(T0).rows]
    top = sum(1 for r in view.rows if r.depth == 0)
    assert len(asked) <= len(view.rows) - top, "a visible call per top-level thread"
    assert len(keyed) < top // 10, "an order-key call per top-level thread"
