"""The reducer: tree shape and order, dedupe and cursors, snapshots, bad input, dirty rows."""

from __future__ import annotations

import copy

import pytest

import t3tui.model.index as index_module
from t3tui.model import ModelInputError, Supervisor, status_document
from t3tui.protocol import decode_shell_item, decode_thread_item
from tests.model import factory as f
from tests.model.replay import feed, load, supervisor, view_at

READY_TASK, READY_CHILD = f.task_ids("ready-1")


def shape(view):
    return [(r.id, r.depth) for r in view.rows]


def test_tree_nests_subagents_in_creation_order_and_keeps_forks_and_orphans_on_top():
    view = view_at(supervisor("tree", until="built"), 100)
    assert shape(view) == [
        ("r1", 0), ("c0", 1), ("c1", 1), ("g1", 2),   # c0 created before c1, sent after it
        ("r2", 0),                                     # by createdAt, not updatedAt
        ("f1", 0),                                     # a fork is not a child
        ("o1", 0), ("o2", 0),                          # parent unknown / archived
        ("s1", 0), ("s1c", 1),
    ]
    assert "x1" not in view.by_id                      # archived threads are not shown
    assert view.row("o1").orphan and view.row("o2").orphan and not view.row("c1").orphan
    assert view.row("r1").children == ("c0", "c1")
    assert view.row("g1").parent_id == "c1"


def test_grandchild_activity_keeps_ancestors_waiting():
    view = view_at(supervisor("tree", until="built"), 100)
    assert view.row("g1").state == "running"
    assert view.row("c1").state == "running"
    assert view.row("r1").state == "waiting"
    assert view.row("r1").child_counts == {"running": 1, "idle": 1}


def test_settled_parent_with_live_child_shows_both_facts():
    # settled is the honest word for a settled parent whose own run is over (issue 13 item 5),
    # and the reason still says what its child is doing
    row = view_at(supervisor("tree", until="built"), 100).row("s1")
    assert row.settled is True
    assert row.state == "settled"
    assert row.state_reason == "settled · 1 child still running"
    assert "settled" in row.overlays


def test_duplicate_sequence_is_dropped():
    sup = supervisor("tree", until="after-duplicate")
    assert view_at(sup, 100).row("c1").title == "Child one"
    assert sup.cursor_shell == 9011


def test_thread_removed_and_reset_snapshot_replace_state():
    sup = supervisor("tree", until="after-removal")
    assert "r2" not in view_at(sup, 100).by_id
    sup = supervisor("tree")
    view = view_at(sup, 100)
    assert shape(view) == [("r1", 0)]
    assert view.rows[0].title == "Root one (restored)"
    assert sup.cursor_shell == 42                      # a reset may move the cursor back


def test_thread_cursor_tracks_events_and_drops_replays():
    doc = load("seed004_detached")
    sup = Supervisor()
    feed(sup, doc["live"])
    cursor = sup.cursor_thread(READY_CHILD)
    events = [fr for fr in doc["live"] if fr.get("threadId") == READY_CHILD and fr["item"]["kind"] == "event"]
    assert cursor == events[-1]["item"]["sequence"]
    before = status_document(view_at(sup, 141))
    for fr in events:                                  # an overlapping replay after a resume
        sup.apply_thread(READY_CHILD, decode_thread_item(fr["item"]))
    assert status_document(view_at(sup, 141)) == before
    assert sup.cursor_thread(READY_CHILD) == cursor


def test_thread_snapshot_replaces_projection():
    sup = supervisor("seed004_detached")
    assert view_at(sup, 141).row(READY_CHILD).state == "stuck"
    tl_fresh = load("seed004_healthy")["fresh"]
    child_snapshot = next(fr for fr in tl_fresh if fr.get("threadId") == READY_CHILD
                          and fr["item"]["kind"] == "snapshot")
    item = copy.deepcopy(child_snapshot["item"])
    item["snapshotSequence"] = 99999
    sup.apply_thread(READY_CHILD, decode_thread_item(item))
    assert sup.cursor_thread(READY_CHILD) == 99999
    proj = sup._ix.records[READY_CHILD].proj
    assert proj is not None and proj.runs["run-c2"]["status"] == "completed"


def test_snapshot_then_live_matches_live_only():
    live = supervisor("overlapping_async")
    fresh = supervisor("overlapping_async", fresh=True)
    assert status_document(view_at(live, 300)) == status_document(view_at(fresh, 300))


def test_synchronized_and_stale():
    sup = Supervisor()
    assert not sup.shell_synchronized
    doc = load("seed004_healthy")
    feed(sup, doc["fresh"])
    assert sup.shell_synchronized and view_at(sup, 200).synchronized
    sup.mark_stale()
    view = view_at(sup, 200)
    assert not view.synchronized
    assert all("stale" in r.overlays for r in view.rows)
    assert sup.cursor_shell is not None                # cursors survive for the resume


def test_threads_of_interest_are_parents_and_children():
    sup = supervisor("tree", until="built")
    assert sup.threads_of_interest() == {"r1", "c0", "c1", "g1", "s1", "s1c", "o1", "o2"}
    sup = supervisor("seed004_detached")
    assert sup.threads_of_interest() == {"thread-parent", READY_CHILD}


def test_task_row_without_child_thread_shows_as_creating():
    sup = Supervisor()
    sup.apply_shell(decode_shell_item({"kind": "thread.updated", "sequence": 1, "location": "active",
                                       "thread": f.shell_row("p", "Parent", 0, status="running",
                                                             activity="running", run="run-p1")}))
    task, child = f.task_ids("new-1")
    row = f.subagent(task, "p", "run-p1", child, "Brand new", wake="always", status="running", started=1)
    sup.apply_thread("p", decode_thread_item({"kind": "event", "sequence": 2, "event": {
        "id": "e2", "threadId": "p", "occurredAt": f.iso(1), "type": "subagent.updated", "payload": row}}))
    view = view_at(sup, 2)
    assert shape(view) == [("p", 0), (child, 1)]
    assert view.row(child).state == "creating" and view.row(child).title == "Brand new"
    assert child in sup.threads_of_interest()


@pytest.mark.parametrize("item", [
    {"kind": "thread.updated", "sequence": "7", "thread": {"id": "x"}},
    {"kind": "thread.updated", "sequence": 99999, "thread": {"title": "no id"}},
    {"kind": "thread.removed", "sequence": 99999},
    {"kind": "snapshot", "snapshot": {"threads": []}},
    "not an object",
])
def test_bad_shell_item_raises_a_clear_error_and_changes_nothing(item):
    sup = supervisor("tree", until="built")
    before = status_document(view_at(sup, 100))
    cursor = sup.cursor_shell
    with pytest.raises(ModelInputError) as info:
        sup.apply_shell(item)
    assert str(info.value)
    assert sup.cursor_shell == cursor
    assert status_document(view_at(sup, 100)) == before


@pytest.mark.parametrize("item", [
    {"kind": "event", "sequence": 99999, "event": {"type": "run.updated", "payload": {"status": "running"}}},
    {"kind": "event", "sequence": 99999, "event": {"payload": {}}},
    {"kind": "event", "sequence": 99999},
    {"kind": "snapshot", "projection": {}},
])
def test_bad_thread_item_raises_and_keeps_cursor(item):
    sup = supervisor("seed004_detached")
    cursor = sup.cursor_thread(READY_CHILD)
    before = status_document(view_at(sup, 141))
    with pytest.raises(ModelInputError):
        sup.apply_thread(READY_CHILD, item)
    assert sup.cursor_thread(READY_CHILD) == cursor
    assert status_document(view_at(sup, 141)) == before


def test_unknown_kinds_and_event_types_are_kept_moving():
    sup = supervisor("seed004_healthy")
    sup.apply_shell({"kind": "shell.future-thing", "sequence": 99990, "x": 1})
    assert sup.cursor_shell == 99990
    sup.apply_thread(READY_CHILD, {"kind": "event", "sequence": 99991, "event": {
        "id": "e", "threadId": READY_CHILD, "occurredAt": f.iso(500), "type": "run.background-work-cancelled",
        "payload": {"whatever": True}}})
    assert sup.cursor_thread(READY_CHILD) == 99991
    assert view_at(sup, 600).findings == ()


def test_forget_thread_drops_projection_but_keeps_row():
    sup = supervisor("seed004_detached")
    sup.forget_thread(READY_CHILD)
    assert sup.cursor_thread(READY_CHILD) is None
    row = view_at(sup, 141).row(READY_CHILD)
    assert row is not None and not row.subscribed
    assert row.state == "running"                      # from the shell row alone


def test_row_matches_view_row():
    sup = supervisor("seed000_serialized")
    view = view_at(sup, 130)
    for row in view.rows:
        assert sup.row(row.id, view.now) == row


def _many_threads(n: int) -> Supervisor:
    sup = supervisor("seed004_detached")
    for i in range(n):
        sup.apply_shell({"kind": "thread.updated", "sequence": 100_000 + i, "location": "active",
                         "thread": f.shell_row(f"bulk-{i}", f"Bulk {i}", 200 + i)})
    return sup


@pytest.mark.parametrize("n", [100, 10_000])
def test_one_event_touches_a_constant_number_of_threads(n, monkeypatch):
    sup = _many_threads(n)
    view_at(sup, 141)
    sup.take_dirty()
    calls = []
    real = index_module.own_facts
    monkeypatch.setattr(index_module, "own_facts", lambda *a: calls.append(a[0]) or real(*a))
    sup.apply_thread(READY_CHILD, {"kind": "event", "sequence": 200_000, "event": {
        "id": "e", "threadId": READY_CHILD, "occurredAt": f.iso(140), "type": "turn-item.updated",
        "payload": f.turn_item("it-x", READY_CHILD, "run-c2", "reasoning", 140, 140, text="thinking")}})
    dirty = sup.take_dirty()
    assert dirty == {READY_CHILD, "thread-parent"}
    row = sup.row(READY_CHILD, f.at(141))
    assert row is not None and row.state == "running"  # progress after the detach: not stuck
    assert set(calls) <= {READY_CHILD, "thread-parent"}


def test_timestamps_of_mixed_precision_order_by_time_not_text() -> None:
    """Servers differ in precision; "…:00Z" is earlier than "…:00.500Z" though it sorts after."""
    from t3tui.model.wire import ts_key

    stamps = ["2026-10-04T12:00:00.500Z", "2026-10-04T12:00:00Z", "2026-10-04T11:59:59.999+00:00"]
    assert sorted(stamps, key=ts_key) == [stamps[2], stamps[1], stamps[0]]
    assert sorted(stamps) != sorted(stamps, key=ts_key)
    assert ts_key(None) < ts_key(stamps[2])


def test_threads_whose_parents_form_a_cycle_are_shown_once_at_top_level_after_the_rest() -> None:
    """A lineage cycle (malformed data: a names b as its parent, b names a) leaves no root
    for its members: they are shown after the rooted tree, each once, the earliest at top
    level and the other below it, in creation order like every other thread."""
    rows = [f.shell_row("r", "root", 0), f.shell_row("c", "child", 1, parent="r"),
            f.shell_row("a", "loop a", 2, parent="b"), f.shell_row("b", "loop b", 3, parent="a"),
            f.shell_row("t", "top", 4)]
    sup = Supervisor()
    sup.apply_shell(decode_shell_item({"kind": "snapshot", "snapshot": {
        "snapshotSequence": 1, "threads": rows, "archivedThreads": []}}))
    view = sup.view(f.at(10))
    assert [(r.id, r.depth) for r in view.rows] == [
        ("r", 0), ("c", 1), ("t", 0), ("a", 0), ("b", 1)]
