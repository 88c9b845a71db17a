"""`I` (stop the tree) is lit exactly when the tree stop has something to stop: the gate and
the action read one predicate (`actions.tree_stoppable` / `actions.stop_targets`), not the
row's direct children's states. Over the model fed wire items, as the client feeds it."""

from __future__ import annotations

from t3tui.actions import stop_targets, tree_stoppable, unavailable
from t3tui.model import Supervisor, SupervisorView
from t3tui.protocol import decode_shell_item, decode_thread_item
from tests.model import factory as f
from tests.model.replay import view_at

NOTHING = "nothing is running in this subtree"


def shell(sup: Supervisor, seq: int, row: dict) -> None:
    sup.apply_shell(decode_shell_item({"kind": "thread.updated", "sequence": seq,
                                       "location": "active", "thread": row}))


def task_row(sup: Supervisor, parent: str, seq: int, row: dict) -> None:
    sup.apply_thread(parent, decode_thread_item({"kind": "event", "sequence": seq, "event": {
        "id": f"e{seq}", "threadId": parent, "occurredAt": f.iso(1), "type": "subagent.updated",
        "payload": row}}))


def gate(view: SupervisorView, thread_id: str) -> str | None:
    """Why `I` is dimmed on the thread, as the app's gate (and a policy) asks."""
    return unavailable("stop_tree", view.row(thread_id), connected=True,
                       stoppable_below=tree_stoppable(view, thread_id))


def creating_only() -> SupervisorView:
    """A parent whose run ended with one delegated child that has no thread (no run) yet."""
    sup = Supervisor()
    shell(sup, 1, f.shell_row("p", "Parent", 0, status="completed", run="run-p1",
                              requested=0, started=0, completed=1, active=False))
    task, child = f.task_ids("new-1")
    task_row(sup, "p", 2, f.subagent(task, "p", "run-p1", child, "Not yet", wake="always",
                                     status="running", started=1))
    view = view_at(sup, 2)
    assert view.row(child).state == "creating" and view.row("p").active_run_id is None
    return view


def grandchild_runs() -> SupervisorView:
    """An idle root, an idle child, a grandchild whose run is active."""
    sup = Supervisor()
    shell(sup, 1, f.shell_row("r", "Root", 0, status="completed", run="run-r1",
                              requested=0, started=0, completed=1, active=False))
    shell(sup, 2, f.shell_row("c", "Child", 1, parent="r", status="completed", run="run-c1",
                              requested=1, started=1, completed=2, active=False))
    shell(sup, 3, f.shell_row("g", "Grandchild", 2, parent="c", status="running",
                              activity="running", run="run-g1", requested=2, started=2))
    return view_at(sup, 3)


def test_i_is_dim_when_a_child_is_only_being_created_and_nothing_runs() -> None:
    view = creating_only()
    assert stop_targets(view, "p") == []  # the action has nothing to stop
    assert gate(view, "p") == NOTHING  # lit, it said "nothing is running" when pressed


def test_the_gate_and_the_action_agree_on_every_row() -> None:
    for view in (creating_only(), grandchild_runs()):
        for row in view.rows:
            has_work = bool(stop_targets(view, row.id))
            assert (gate(view, row.id) is None) == has_work, (row.id, row.state, has_work)
    view = grandchild_runs()
    assert [t.thread_id for t in stop_targets(view, "r")] == ["g"]
    assert gate(view, "r") is None  # the grandchild's run is what `I` on the root stops
