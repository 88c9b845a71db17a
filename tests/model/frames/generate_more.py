"""Fixtures for each stuck rule and for the tree (see generate.py)."""

from __future__ import annotations

from tests.model import factory as f
from tests.model.frames.generate import begin_run, delegate, end_run, progress
from tests.model.timeline import Timeline


def running_row(tid: str, title: str, rid: str, updated: float, activity: str = "running") -> dict:
    return f.shell_row(tid, title, 0, status="running" if activity == "running" else activity,
                       activity=activity, run=rid, requested=0, started=0, updated=updated)


def stuck_rules() -> Timeline:
    """One top-level thread per stuck rule, plus two parent/child pairs for delivery rules."""
    tl = Timeline("Each stuck / delivery rule on its own thread (see tests/model/test_detectors.py).")
    # T1: the provider finished the turn; T3 still says running
    tl.shell(running_row("t1", "Provider finished", "run-1", 0))
    tl.subscribe("t1")
    begin_run(tl, "t1", "run-1", 0, "pt-1")
    progress(tl, "t1", "run-1", 10, 0)
    tl.event("t1", "provider-turn.updated", f.provider_turn("turn-run-1", "run-1", "pt-1", "completed", 0, 20), 20)
    tl.event("t1", "provider-thread.updated", f.provider_thread("pt-1", "t1", None, "idle", 20), 20)
    tl.shell(running_row("t1", "Provider finished", "run-1", 20))
    # T2: drain (run `waiting`) that never ends
    tl.shell(running_row("t2", "Long drain", "run-2", 0))
    tl.subscribe("t2")
    begin_run(tl, "t2", "run-2", 0, "pt-2")
    progress(tl, "t2", "run-2", 5, 0)
    tl.event("t2", "provider-turn.updated", f.provider_turn("turn-run-2", "run-2", "pt-2", "completed", 0, 10), 10)
    tl.event("t2", "run.updated", f.run("run-2", "t2", 1, "waiting", 0, 0, pthread="pt-2"), 10, "run-2")
    tl.shell(running_row("t2", "Long drain", "run-2", 10, activity="waiting"))
    # T3: silence while running
    tl.shell(running_row("t3", "Silent", "run-3", 0))
    tl.subscribe("t3")
    begin_run(tl, "t3", "run-3", 0, "pt-3")
    progress(tl, "t3", "run-3", 5, 0)
    tl.shell(running_row("t3", "Silent", "run-3", 5))
    # T4: its provider session stopped during the run
    tl.shell(running_row("t4", "Session stopped", "run-4", 0))
    tl.subscribe("t4")
    begin_run(tl, "t4", "run-4", 0, "pt-4", session="ps-4")
    progress(tl, "t4", "run-4", 5, 0)
    tl.event("t4", "provider-session.updated", f.provider_session("ps-4", "stopped", 20), 20)
    # P5/C5: a finished child whose result is never delivered
    tl.shell(f.shell_row("p5", "Forgetful parent", 0, status="completed", run="run-p5", requested=0,
                         started=0, completed=10, updated=10))
    tl.subscribe("p5")
    begin_run(tl, "p5", "run-p5", 0, "pt-p5")
    task5, c5 = delegate(tl, "undelivered-5", "Finished child", 2.0, "always", pthread="pt-c5",
                         parent="p5", parent_run="run-p5")
    end_run(tl, "p5", "run-p5", 0, 10, "pt-p5")
    end_run(tl, c5, "run-undelivered-5", 2.0, 20, "pt-c5")
    tl.shell(f.shell_row(c5, "Finished child", 2.0, parent="p5", status="completed",
                         run="run-undelivered-5", requested=2, started=2, completed=20, updated=20))
    tl.event("p5", "subagent.updated", f.subagent(task5, "p5", "run-p5", c5, "Finished child",
                                                  wake="always", status="completed", started=2.0,
                                                  completed=20, delivery="pending"), 20, "run-p5")
    # P6/C6: the parent was stopped; its child keeps working and will wake nobody
    tl.shell(f.shell_row("p6", "Stopped parent", 0, status="interrupted", run="run-p6", requested=0,
                         started=0, completed=10, updated=10))
    tl.subscribe("p6")
    begin_run(tl, "p6", "run-p6", 0, "pt-p6")
    _task6, c6 = delegate(tl, "orphan-6", "Orphaned child", 2.0, "always", pthread="pt-c6",
                         parent="p6", parent_run="run-p6")
    tl.event("p6", "run.updated", f.run("run-p6", "p6", 1, "interrupted", 0, 0, 10, "pt-p6", "stopped"), 10, "run-p6")
    for n, t in enumerate(range(5, 61, 5)):
        progress(tl, c6, "run-orphan-6", t, n)
    tl.shell(f.shell_row(c6, "Orphaned child", 2.0, parent="p6", status="running", activity="running",
                         run="run-orphan-6", requested=2, started=2, updated=60))
    return tl


def tree() -> Timeline:
    """Roots, children, a grandchild, a fork, orphans, a settled parent; then dedupe, removal
    and a reset snapshot."""
    tl = Timeline("Tree shapes, duplicate delivery, removal and a reset snapshot.")
    tl.shell(f.shell_row("r1", "Root one", 0, updated=1000))
    tl.shell(f.shell_row("r2", "Root two", 5, updated=6))
    tl.shell(f.shell_row("c1", "Child one", 10, parent="r1", status="running", activity="running",
                         run="run-c1", requested=10, started=10, updated=11))
    tl.shell(f.shell_row("c0", "Child zero", 8, parent="r1", status="completed", run="run-c0",
                         requested=8, started=8, completed=9, updated=9))
    tl.shell(f.shell_row("g1", "Grandchild", 20, parent="c1", status="running", activity="running",
                         run="run-g1", requested=20, started=20, updated=21))
    tl.shell(f.shell_row("f1", "Fork of root one", 15, parent="r1", relationship="fork"))
    tl.shell(f.shell_row("o1", "Orphan of a gone parent", 30, parent="thread-gone"))
    tl.shell(f.shell_row("x1", "Archived parent", 35, archived_at=36), location="archive")
    tl.shell(f.shell_row("o2", "Child of archived", 40, parent="x1"))
    tl.shell(f.shell_row("s1", "Settled parent", 45, status="completed", run="run-s1", requested=45,
                         started=45, completed=46, settled_at=50, updated=50))
    tl.shell(f.shell_row("s1c", "Live child of settled", 46, parent="s1", status="running",
                         activity="running", run="run-s1c", requested=46, started=46, updated=60))
    tl.mark("built")
    dup = f.shell_row("c1", "DUPLICATE (must be dropped)", 10, parent="r1")
    tl.frames.append({"stream": "shell", "item": {"kind": "thread.updated", "sequence": tl.seq,
                                                  "location": "active", "thread": dup}})
    tl.mark("after-duplicate")
    tl.remove("r2")
    tl.mark("after-removal")
    tl.frames.append({"stream": "shell", "item": {"kind": "snapshot", "snapshot": {
        "schemaVersion": 1, "snapshotSequence": 42, "projects": [],
        "threads": [f.shell_row("r1", "Root one (restored)", 0)], "archivedThreads": []}}})
    return tl


MORE = {"stuck_rules": stuck_rules, "tree": tree}
