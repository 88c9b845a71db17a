"""A patched row (only the thread's own facts changed) equals a fresh derivation.

`Derivation._patch` keeps the tree parts of a row (children, their counts, depth, parent, task
row) and derives the rest again when an event changed only the thread's own data. Hypothesis
replays every stream fixture and asks at random moments and cadences, in random ways (`row`
of each dirtied thread, `view`, `changed_rows`, or not at all, so patches pile up between
asks): the incremental supervisor must agree with `Supervisor(incremental=False)` each time.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.scaling import loaded
from benchmarks.world import WorldSpec, build_world
from t3tui.model import DetectorConfig, Supervisor, factpatch, index
from t3tui.model import facts as facts_module
from t3tui.model.factpatch import changed_fields
from t3tui.model.facts import own_facts, task_facts
from t3tui.model.projection import Projection, ToolCall, upsert_subagent
from t3tui.model.wire import ModelInputError, ts
from tests.model.replay import feed, frame_time
from tests.model.test_incremental import CONFIGS, FIXTURES, _frames


def _apply(sup: Supervisor, frame: dict) -> bool:
    try:
        feed(sup, [frame])
    except (ModelInputError, ValueError):
        return False
    return True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(FIXTURES), config=st.sampled_from(CONFIGS), data=st.data())
def test_patched_rows_equal_fresh_rows_whatever_the_asking_cadence(name: str, config: DetectorConfig,
                                                           data: st.DataObject) -> None:
    frames = _frames(name)
    ref, inc = Supervisor(config, incremental=False), Supervisor(config)
    now = None
    for frame in frames:
        if (ok := _apply(ref, frame)) != _apply(inc, frame):
            raise AssertionError(f"{name}: one supervisor refused a frame the other took")
        if not ok:
            continue
        at = frame_time(frame) or now
        if at is None:
            continue
        now = max(now or at, at) + timedelta(seconds=data.draw(st.sampled_from((0, 0.3, 4, 61))))
        how = data.draw(st.sampled_from(("row", "view", "changed", "none")))
        if how == "none":
            continue
        expected = ref.view(now)
        if how == "view":
            got = inc.view(now)
            assert got.rows == expected.rows, f"{name} at {now}"
            assert [r.child_counts for r in got.rows] == [r.child_counts for r in expected.rows]
        elif how == "changed":
            for tid, row in inc.changed_rows(now).items():
                want = expected.row(tid)
                assert (row is None) == (want is None), f"{name}: {tid} at {now}"
                if row is not None and not row.findings:  # exact only when derived
                    assert row == want and row.child_counts == want.child_counts, f"{name}: {tid}"
        else:
            for tid in inc.take_dirty():
                row = inc.row(tid, now)
                want = expected.row(tid)
                assert row == want, f"{name}: {tid} at {now}"
                assert row is None or row.child_counts == want.child_counts


def _facts_match_a_rebuild(sup: Supervisor, where: str) -> None:
    ix = sup._ix
    for thread_id, facts in ix.facts.items():
        rec = ix.records.get(thread_id)
        if rec is not None:
            fresh = own_facts(thread_id, rec.shell, rec.location, rec.proj)
            assert facts == fresh, f"{where}: {thread_id} {changed_fields(fresh, facts)}"


@pytest.mark.parametrize("name", FIXTURES)
def test_facts_patched_from_an_event_equal_facts_rebuilt(name: str) -> None:
    """`progress_facts`, `message_facts` and `shell_facts` give what `own_facts` gives."""
    sup = Supervisor()
    for i, frame in enumerate(_frames(name)):
        feed(sup, [frame])
        for thread_id in list(sup._ix.records):
            sup._ix.own(thread_id)  # every thread's facts cached: the next event patches them
        _facts_match_a_rebuild(sup, f"{name} #{i}")


def test_the_benchmark_world_patches_facts_and_rows() -> None:
    """The load `benchmarks/scaling.py` measures: its patched facts equal rebuilt ones."""
    world = build_world(WorldSpec(threads=120, events=400))
    sup, ref = loaded(world), Supervisor(incremental=False)
    for item in (world.shell_snapshot, {"kind": "synchronized"}):
        ref.apply_shell(item)
    for thread_id, item in world.thread_snapshots.items():
        ref.apply_thread(thread_id, item)
        ref.apply_thread(thread_id, {"kind": "synchronized"})
    for i, (stream, item) in enumerate(world.burst):
        for s in (sup, ref):
            s.apply_shell(item) if stream is None else s.apply_thread(stream, item)
        for thread_id in sup.take_dirty():
            assert sup.row(thread_id, world.end) == ref.row(thread_id, world.end), f"#{i}"
        _facts_match_a_rebuild(sup, f"burst #{i}")


@pytest.mark.parametrize("every", [2, 3, 7])
@pytest.mark.parametrize("name", FIXTURES)
def test_facts_patched_from_many_events_at_once_equal_facts_rebuilt(name: str, every: int) -> None:
    """Patches pile up between reads (a burst moves a thread many times a frame) and are applied
    once, each reading the thread's data as it is then: still what `own_facts` gives."""
    sup = Supervisor()
    for i, frame in enumerate(_frames(name)):
        feed(sup, [frame])
        if i % every:
            continue
        for thread_id in list(sup._ix.records):
            sup._ix.own(thread_id)
        _facts_match_a_rebuild(sup, f"{name} #{i} (read every {every})")


def test_the_benchmark_world_patches_facts_once_per_read() -> None:
    """A parent's task rows change many times between two frames: its facts are patched once,
    when the frame reads them, not once per `subagent.updated` (each rebuilt every task's
    facts); and they equal facts rebuilt."""
    world = build_world(WorldSpec(threads=120, events=1500))
    sup = loaded(world)
    parent = world.parents[0]
    events = [item for stream, item in world.burst if stream == parent]
    assert len(events) >= 5, "the world gives the parent a few task row updates"
    calls = []
    real = factpatch.task_facts
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(factpatch, "task_facts", lambda *a: calls.append(a) or real(*a))
        for item in events:
            sup.apply_thread(parent, item)
        sup.changed_rows(world.end)
    assert len(calls) == 1, f"{len(events)} events patched the facts {len(calls)} times"
    _facts_match_a_rebuild(sup, "after the burst")


def test_the_benchmark_world_rebuilds_no_facts_in_a_burst() -> None:
    """Every event of the burst patches the facts it moves, runs included, and so does an
    event on a child its parent's task row marked for a full derivation (that row is derived
    afresh, from patched facts): no thread's facts are rebuilt whole (~30-70 us each), and at
    every frame they equal facts rebuilt."""
    world = build_world(WorldSpec(threads=120, events=1500))
    sup = loaded(world)
    rebuilt = []
    real = index.own_facts
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(index, "own_facts", lambda *a: rebuilt.append(a[0]) or real(*a))
        for i, (stream, item) in enumerate(world.burst):
            sup.apply_shell(item) if stream is None else sup.apply_thread(stream, item)
            if i % 100 == 99:
                sup.changed_rows(world.end)
                _facts_match_a_rebuild(sup, f"burst #{i}")
    assert not rebuilt, f"{len(rebuilt)} facts rebuilt in a burst of {len(world.burst)} items"


def _moved_within_names(sup: Supervisor, where: str) -> int:
    """Every thread whose facts since its row's derivation came only from patches differs
    from the facts that row read only in the facts those patches move. Returns how many."""
    ix, checked = sup._ix, 0
    for thread_id, patches in ix.moved.items():
        if thread_id in ix.before and thread_id in ix.records:
            moved = changed_fields(ix.before[thread_id], ix.own(thread_id))
            names = factpatch.moved_names(patches)
            assert set(moved) <= set(names), f"{where}: {thread_id} {set(moved) - set(names)}"
            checked += 1
    return checked


@pytest.mark.parametrize("every", [1, 4])
@pytest.mark.parametrize("name", FIXTURES)
def test_a_patch_moves_only_the_facts_it_names(name: str, every: int) -> None:
    """`factpatch.moves`: each patch replaces no fact it does not name, so a patched row
    compares only the named ones (`Derivation._patch`); on every fixture, frames every
    `every` items, and on the benchmark world."""
    sup = Supervisor()
    checked, now = 0, None
    for i, frame in enumerate(_frames(name)):
        feed(sup, [frame])
        checked += _moved_within_names(sup, f"{name} #{i}")
        now = frame_time(frame) or now
        if i % every == 0 and now is not None:
            sup.changed_rows(now)
    world = build_world(WorldSpec(threads=60, events=300))
    sup = loaded(world)
    for i, (stream, item) in enumerate(world.burst):
        sup.apply_shell(item) if stream is None else sup.apply_thread(stream, item)
        checked += _moved_within_names(sup, f"world #{i}")
        if i % (every * 7) == 0:
            sup.changed_rows(world.end)
    assert checked > 50, checked


def test_a_task_row_update_builds_that_tasks_facts_alone() -> None:
    """A `subagent.updated` moves one task row of a parent: its patch (`subagent_facts`)
    builds that task's facts and keeps the others' (their row, tool call, wake history and
    published result are the same), where it built every task's of the parent (492 for 177
    updates of 60 tasks); the facts still equal facts rebuilt at every frame."""
    world = build_world(WorldSpec(threads=120, events=1500))
    sup = loaded(world)
    built: list[str] = []
    real = facts_module.TaskFacts
    updates = 0
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(facts_module, "TaskFacts", lambda **kw: built.append(kw["task_id"]) or real(**kw))
        for i, (stream, item) in enumerate(world.burst):
            sup.apply_shell(item) if stream is None else sup.apply_thread(stream, item)
            event = item.get("event") or {}
            updates += event.get("type") == "subagent.updated"
            if i % 50 == 49:
                sup.changed_rows(world.end)
                counted = len(built)
                _facts_match_a_rebuild(sup, f"burst #{i}")
                del built[counted:]  # the rebuilds' own, not the patches'
    assert updates > 20, updates
    # (a parent's first such patch builds all of its tasks' facts: the memo starts empty)
    tasks = sum(len(rec.proj.subagents) for rec in sup._ix.records.values() if rec.proj)
    assert len(built) <= updates + tasks, \
        f"{len(built)} task facts built for {updates} task row updates ({tasks} tasks)"


def _task_row(task_id: str, child: str, **more) -> dict:
    return {"id": task_id, "childThreadId": child, "status": "running", "runId": "run-1",
            "completionWake": "settled_only", "startedAt": "2026-10-04T12:00:00.000Z",
            "updatedAt": "2026-10-04T12:00:00.000Z", **more}


def _tool(task_id: str, completed: str | None = None) -> ToolCall:
    return ToolCall(item_id=f"tool-{task_id}", mode="wait", timeout_ms=60_000,
                    client_request_id=None, task_id=task_id,
                    started_at=ts("2026-10-04T12:00:00.000Z"), completed_at=ts(completed))


@pytest.mark.parametrize("change", ["tool", "published", "flipped", "row", "gone"])
def test_a_tasks_facts_are_kept_only_while_what_they_are_built_from_is(change: str) -> None:
    """The task facts memo (`task_facts(..., memo)`): after any one of what a task's facts
    are built from changes (its wait call's return, its result published, its wake flipped,
    its row, the task gone), they equal facts built without the memo, and the other task's
    are kept (the same object)."""
    proj = Projection()
    for task_id, child in (("task-a", "child-a"), ("task-b", "child-b")):
        upsert_subagent(proj, _task_row(task_id, child), None)
        proj.tool_calls[f"tool-{task_id}"] = _tool(task_id)
    memo: dict = {}
    first = {t.task_id: t for t in task_facts("parent", proj, memo)}
    if change == "tool":
        proj.tool_calls["tool-task-a"] = _tool("task-a", "2026-10-04T12:00:05.000Z")
    elif change == "published":
        proj.published.add("child-a")
    elif change == "flipped":
        proj.wake_flipped_at["task-a"] = ts("2026-10-04T12:00:03.000Z")
    elif change == "row":
        upsert_subagent(proj, _task_row("task-a", "child-a", status="completed",
                                        completedAt="2026-10-04T12:00:04.000Z"), None)
    else:
        del proj.subagents["task-a"]
    got = task_facts("parent", proj, memo)
    assert got == task_facts("parent", proj), change
    assert {t.task_id: t for t in got}["task-b"] is first["task-b"]
    if change != "gone":
        assert {t.task_id: t for t in got}["task-a"] != first["task-a"], change
    assert set(memo) == set(proj.subagents)


def test_facts_behind_by_several_events_apply_no_patch_another_one_covers() -> None:
    """Each patch computes its facts from the thread's data as it is when applied: of the
    patches queued for one read, one whose facts another's include (a turn event's with a run
    event's, a progress time's with a message's) gives nothing the other does not, and is
    not applied. Facts still equal facts rebuilt at every frame."""
    world = build_world(WorldSpec(threads=120, events=1500))
    sup = loaded(world)
    groups: list[list[str]] = []
    real_own = index.TreeIndex.own

    def own(self, thread_id):
        groups.append([])
        try:
            return real_own(self, thread_id)
        finally:
            if not groups[-1]:
                groups.pop()

    def spied(name, patch):
        def applied(old, rec):
            if groups:
                groups[-1].append(name)
            return patch(old, rec)
        applied.moves = patch.moves
        return applied

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(index.TreeIndex, "own", own)
        for name, patch in list(factpatch.EVENT_PATCHES.items()):
            mp.setitem(factpatch.EVENT_PATCHES, name, spied(name, patch))
        for i, (stream, item) in enumerate(world.burst):
            sup.apply_shell(item) if stream is None else sup.apply_thread(stream, item)
            if i % 50 == 49:
                sup.changed_rows(world.end)
                _facts_match_a_rebuild(sup, f"burst #{i}")
    moves = {name: patch.moves for name, patch in factpatch.EVENT_PATCHES.items()}
    assert sum(len(g) > 1 for g in groups) > 20, groups
    covered = [g for g in groups
               if any(a != b and moves[a] <= moves[b] for a in g for b in g)]
    assert not covered, f"{len(covered)} of {len(groups)} reads applied a covered patch: {covered[:5]}"


def test_a_shell_update_that_moved_only_its_time_patches_that_fact_alone() -> None:
    """An idle thread's shell update that moved its `updatedAt` (and keys no fact reads), its
    title and latest message as they were (most shell updates of a big tree): its facts take
    the new time alone, no preview built again; they equal facts rebuilt."""
    world = build_world(WorldSpec(threads=120, events=400))
    sup = loaded(world)
    standalone = set(world.standalone)
    previews: list[tuple] = []
    real = factpatch.preview
    updates = 0
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(factpatch, "preview", lambda *a: previews.append(a) or real(*a))
        for stream, item in world.burst:
            if stream is None and item["thread"]["id"] in standalone:
                sup.apply_shell(item)
                sup._ix.own(item["thread"]["id"])  # the patch applied now
                updates += 1
    assert updates > 10, updates
    assert not previews, f"{len(previews)} previews built for {updates} time-only updates"
    _facts_match_a_rebuild(sup, "after the updates")
