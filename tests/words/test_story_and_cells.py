"""Finding stories and the status table's cells (`t3tui.words.story`, `t3tui.words.cells`)."""

from __future__ import annotations

import dataclasses

from t3tui.model import Finding, Supervisor, SupervisorView
from t3tui.words.cells import detail_cell, findings_cell, title_cell
from t3tui.words.story import MOMENTS, story
from tests.model.factory import at, shell_row, task_ids

TASK, CHILD = task_ids("same-session")


def view() -> SupervisorView:
    sup = Supervisor()
    sup.apply_shell({"kind": "snapshot", "snapshot": {
        "snapshotSequence": 1, "projects": [], "archivedThreads": [], "threads": [
            shell_row("thread-parent", "Settled by the demo (seed 004)", 0),
            shell_row(CHILD, "Same-session child", 1, parent="thread-parent",
                      status="running", activity="running", run="rc", requested=2,
                      started=3)]}})
    sup.apply_shell({"kind": "synchronized"})
    return sup.view(at(100))


DETACHED = Finding(
    "stuck", CHILD, "session-detached-by-other",
    "provider session psess-1 was detached by Settled by the demo (seed 004) (Thread settled); "
    "run rc has shown no progress for 40s",
    {"providerSessionId": "psess-1", "detachedByThreadId": "thread-parent",
     "detachedAt": "2026-10-04T12:00:30.000Z", "detachReason": "Thread settled.",
     "runId": "rc", "runStartedAt": "2026-10-04T12:00:31.000Z",
     "lastProgressAt": "2026-10-04T12:00:20.000Z", "heldSeconds": 40.0}, at(60))


def test_seed_004_detach_reads_as_a_story_with_the_settling_parent_by_name() -> None:
    sentence, timeline = story(DETACHED, view(), CHILD)
    assert sentence == DETACHED.reason  # no wire id in it: as the detector wrote it
    assert timeline == [
        "12:00:20  last sign of progress",
        "12:00:30  → its provider session was detached by “Settled by the demo (seed 004)” "
        "(thread-parent) (Thread settled)",
        "12:00:31  → the run started",
    ]


def test_a_story_names_task_ids_in_its_sentence_and_caps_its_moments() -> None:
    evidence = {f"step{i}At": f"2026-10-04T12:00:{i:02d}.000Z" for i in range(MOMENTS + 2)}
    finding = Finding("stuck", CHILD, "no-progress", f"task {TASK} ran quiet", evidence, at(60))
    sentence, timeline = story(finding, view(), CHILD)
    assert sentence == "task “Same-session child” (same-session) ran quiet"
    assert len(timeline) == MOMENTS + 1 and timeline[-1] == "… 2 more moments in the raw evidence"
    assert timeline[0] == "12:00:00  step0"  # an unknown key in words


def test_cells_name_threads_in_the_detail_unless_asked_for_the_raw_reason() -> None:
    v = view()
    row = v.row("thread-parent")
    assert row is not None
    waiting = dataclasses.replace(row, state="waiting", state_reason=f"waiting on {TASK}",
                                  findings=(DETACHED, DETACHED))
    assert detail_cell(waiting, v) == "on “Same-session child” (same-session)"
    assert detail_cell(waiting) == f"on {TASK}"
    assert findings_cell(waiting) == "⚑ stuck"
    assert title_cell(row, row.id) == "Settled by the demo (seed 004)"
    assert title_cell(None, CHILD) == "same-session"
