"""The human output of `status`, `watch` and thread lookup, from real model views.

A Supervisor is fed wire-shaped shell rows; what is printed is checked as a person reads it:
one line per thread with tree guides, short ids that `find_thread` accepts, agent text that
is never markup and never breaks a line, and lines that fit the terminal.
"""

from __future__ import annotations

import dataclasses
import io
import re

import pytest
from rich.console import Console
from rich.text import Text

from t3tui.headless.common import CommandError, find_thread
from t3tui.headless.render import (
    Column,
    detail_text,
    finding_lines,
    fit,
    print_lines,
    report,
    tree_guides,
)
from t3tui.headless.watch import Printer
from t3tui.model import Change, Finding, Supervisor, SupervisorView
from t3tui.model.labels import evidence_value, reason_detail, short_id
from tests.model.factory import at, shell_row, task_ids

NOW = at(200)
TASK_A, CHILD_A = task_ids("review-a")
TASK_B, CHILD_B = task_ids("review-b")
_, CHILD_X = task_ids("lint", namespace="other-session")
LONG_ID = "thread-" + "x" * 40 + "-end"
HOSTILE = "[bold]Deploy[/bold] \x1b[31mnow\x1b]0;title\x07\nsecond line"


@pytest.fixture(autouse=True)
def no_columns_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)


def view() -> SupervisorView:
    rows = [
        shell_row("parent", "Two reviews", 0, status="running", activity="running", run="r1",
                  requested=1, started=1),
        shell_row(CHILD_A, "Review A", 10, parent="parent", status="completed", run="ra",
                  completed=90),
        shell_row(CHILD_B, HOSTILE, 11, parent="parent", status="running", activity="running",
                  run="rb", requested=11, started=12),
        shell_row("other", "Another root", 20, status="completed", run="ro", completed=50),
        shell_row(CHILD_X, "Lint", 21, parent="other", status="completed", run="rx",
                  completed=40),
        shell_row(LONG_ID, "Long id", 30),
    ]
    sup = Supervisor()
    sup.apply_shell({"kind": "snapshot", "snapshot": {
        "snapshotSequence": 5, "projects": [], "threads": rows, "archivedThreads": []}})
    sup.apply_shell({"kind": "synchronized"})
    return sup.view(NOW)


def rendered(columns: int | None) -> list[str]:
    buffer = io.StringIO()
    out = Console(file=buffer, width=columns or 80, force_terminal=columns is not None,
                  color_system=None, highlight=False, emoji=False, soft_wrap=True)
    print_lines(out, report(out, view()))
    return buffer.getvalue().splitlines()


def test_status_is_a_summary_then_one_row_per_thread_in_a_tree() -> None:
    lines = rendered(None)
    assert lines[0] == "2 running · 4 idle"
    header = lines[2].split()
    assert header == ["STATE", "FOR", "THREAD", "DETAIL", "PROVIDER", "ID"]
    table = lines[3:]
    assert len(table) == len(view().rows) == 6
    assert re.match(r"▶ running +3m19s  Two reviews +codex/gpt-5 +parent$", table[0])
    assert "├─ Review A" in table[1] and table[1].endswith("review-a")
    assert "└─ [bold]Deploy[/bold] ␛[31mnow␛]0;title␇ second line  " in table[2]
    assert table[2].endswith("review-b")
    assert "Another root" in table[3] and "└─ Lint" in table[4] and table[4].endswith("lint")
    assert table[5].endswith(short_id(LONG_ID)) and "…" in short_id(LONG_ID)
    assert all("\x1b" not in line for line in lines)


def test_a_narrow_terminal_drops_columns_then_cuts_titles_ids_only_in_the_middle() -> None:
    v = view()
    for columns in (100, 72, 56):
        table = rendered(columns)[2:]
        assert all(len(line) <= columns for line in table), (columns, table)
        for line, row in zip(table[1:], v.rows, strict=True):
            assert find_thread(v, line.rsplit(" ", 1)[-1]).id == row.id, (columns, line)
    assert "PROVIDER" not in rendered(72)[2] and "FOR" in rendered(72)[2]
    assert rendered(56)[2].split() == ["STATE", "THREAD", "DETAIL", "ID"]
    last = rendered(30)[-1]  # overflows; its id, cut, still finds the thread
    assert find_thread(view(), last.rsplit(" ", 1)[-1]).id == LONG_ID


def test_columns_fit_in_turn_drop_then_shrink_then_drop() -> None:
    def col(name: str, width: int, shrink: int | None) -> Column:
        return Column(name, [Text("x" * width)], shrink_to=shrink)

    columns = [col("A", 10, None), col("B", 30, 10), col("C", 10, None)]
    assert fit(columns, None, ("C",)) == [10, 30, 10]
    assert fit(columns, 54, ("C",)) == [10, 30, 10]
    assert fit(columns, 44, ("C",)) == [10, 30, 0]          # dropped before any cut
    assert fit(columns, 30, ("C",)) == [10, 18, 0]          # then cut
    assert fit(columns, 10, ("C",)) == [10, 10, 0]          # never below the minimum


def test_tree_guides_continue_past_a_deeper_subtree() -> None:
    assert tree_guides(view().rows) == ["", "├─ ", "└─ ", "", "└─ ", ""]


def test_printed_short_ids_find_their_thread() -> None:
    v = view()
    for row in v.rows:
        assert find_thread(v, short_id(row.id)).id == row.id
    assert find_thread(v, "review-a").id == CHILD_A
    assert find_thread(v, short_id(LONG_ID, 12)).id == LONG_ID  # any cut of the id
    assert find_thread(v, "Another root").id == "other"
    with pytest.raises(CommandError, match="no thread"):
        find_thread(v, "thread-…-nope")


@pytest.mark.parametrize(("state", "reason", "detail"), [
    ("idle", "idle", ""),
    ("running", "running", ""),
    ("running", "starting", "starting"),
    ("waiting", "waiting (1 child)", "1 child"),
    ("waiting", "waiting on Review A", "on Review A"),
    ("done", "done (failed) · not yet seen by parent", "failed · not yet seen by parent"),
    ("done", "done · not yet seen by parent", "not yet seen by parent"),
    ("needs-input", "needs input: command", "command"),
    ("stuck", "stuck? no progress for 4m", "no progress for 4m"),
    ("idle", "idle (last run failed)", "last run failed"),
    ("idle", "no runs", "no runs"),
])
def test_a_reason_shows_only_what_the_state_word_does_not(state, reason, detail) -> None:
    assert reason_detail(state, reason) == detail


def test_watch_lines_read_like_status_rows(capsys: pytest.CaptureFixture[str]) -> None:
    Printer(ndjson=False).change(Change("state", CHILD_B, HOSTILE, "running", "waiting",
                                        "waiting on Review A", NOW))
    line = capsys.readouterr().out
    assert line.count("\n") == 1
    assert line == ("12:03:20  ▶ running → ◎ waiting  [bold]Deploy[/bold] ␛[31mnow␛]0;title␇ "
                    "second line  "
                    "on Review A  review-b\n")


def test_watch_finding_lines_name_the_kind_rule_and_thread(
    capsys: pytest.CaptureFixture[str],
) -> None:
    finding = Finding("stuck", CHILD_B, "no-progress", "running with no progress for 4m",
                      {"runId": "rb"}, at(100))
    printer = Printer(ndjson=False)
    printer.change(Change("finding", CHILD_B, "Review B", "running", "stuck",
                          finding.reason, NOW, finding))
    printer.change(Change("finding-cleared", CHILD_B, "Review B", "stuck", "running",
                          f"cleared: {finding.reason}", NOW, finding))
    assert capsys.readouterr().out.splitlines() == [
        "12:03:20  ⚑ stuck  Review B  running with no progress for 4m  [no-progress]  review-b",
        "12:03:20  ✔ cleared stuck  Review B  running with no progress for 4m  [no-progress]  "
        "review-b",
    ]


SERIALIZED = Finding(
    "serialized_wait", "parent", "serial-arrival", "wait calls ran one at a time",
    {"pairs": [{"previousTaskId": TASK_A, "nextTaskId": TASK_B,
                "nextArrivedAt": "2026-10-04T12:01:40.000Z", "gapSeconds": 0.5}],
     "toleranceSeconds": 2.0}, at(100))


def finding_printed(finding: Finding, raw: bool) -> list[str]:
    buffer = io.StringIO()
    out = Console(file=buffer, width=80, color_system=None, soft_wrap=True)
    print_lines(out, finding_lines(out, finding, view(), raw))
    return buffer.getvalue().splitlines()


def test_findings_follow_the_table_with_rule_reason_and_evidence() -> None:
    # --raw: the reason and the evidence as the detector wrote them
    assert finding_printed(SERIALIZED, raw=True) == [
        "⚑ serialized  Two reviews  parent  serial-arrival  for 1m40s",
        "  wait calls ran one at a time",
        "  toleranceSeconds=2",
        "  pairs: previousTaskId=review-a · nextTaskId=review-b · nextArrivedAt=12:01:40 · "
        "gapSeconds=0.5",
    ]


def test_findings_tell_their_story_with_threads_by_name_by_default() -> None:
    task = TASK_A.replace("review-a", "review-a.")  # an id at the end of a sentence
    finding = Finding("stuck", CHILD_A, "no-progress",
                      f"Delegated task {task} ran with no progress for 4m",
                      {"runStartedAt": "2026-10-04T12:00:10.000Z",
                       "lastProgressAt": "2026-10-04T12:00:40.000Z"}, at(100))
    assert finding_printed(finding, raw=False) == [
        "⚑ stuck  Review A  review-a  no-progress  for 1m40s",
        "  Delegated task “Review A” (review-a). ran with no progress for 4m",
        "    12:00:10  the run started",
        "    12:00:40  → last sign of progress",
    ]
    told = finding_printed(SERIALIZED, raw=False)
    assert told[1:3] == ["  wait calls ran one at a time",
                         "    12:01:40  “[bold]Deploy[/bold] ␛[31mnow␛]0;title␇ …” (review-b) "
                         "created, 0.5 s later"]
    assert not any("=" in line or "%3A" in line for line in told)


def test_the_detail_column_names_threads_and_raw_keeps_the_ids() -> None:
    sup = Supervisor()
    sup.apply_shell({"kind": "snapshot", "snapshot": {
        "snapshotSequence": 1, "projects": [], "archivedThreads": [], "threads": [
            shell_row("parent", "Two reviews", 0, status="running", activity="running",
                      run="r1", requested=1, started=1),
            shell_row(CHILD_A, "Review A", 10, parent="parent", status="running",
                      activity="running", run="ra", requested=11, started=12)]}})
    sup.apply_shell({"kind": "synchronized"})
    v = sup.view(NOW)
    row = v.row("parent")
    assert row is not None
    named = dataclasses.replace(row, state_reason=f"waiting on {TASK_A}")
    assert detail_text(named, v).plain == "waiting on “Review A” (review-a)"
    assert detail_text(named).plain == f"waiting on {TASK_A}"


def test_watch_names_the_threads_in_a_reason_unless_raw(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sup_view = view()
    finding = Finding("stuck", "parent", "no-progress", f"waiting on {TASK_A}", {}, at(100))
    change = Change("finding", "parent", "Two reviews", "running", "stuck", finding.reason, NOW,
                    finding)
    told = Printer(ndjson=False)
    told.names = sup_view
    told.change(change)
    Printer(ndjson=False, raw=True).change(change)
    named, raw = capsys.readouterr().out.splitlines()
    assert "waiting on “Review A” (review-a)  [no-progress]" in named
    assert f"waiting on {TASK_A}  [no-progress]" in raw


def test_an_agent_chosen_client_request_id_cannot_drive_the_terminal() -> None:
    # The id encodes the agent's clientRequestId percent-encoded; printing decodes it.
    _, child = task_ids("rev\x1b[2J\x1b]0;owned\x07\nfake row")
    sup = Supervisor()
    sup.apply_shell({"kind": "snapshot", "snapshot": {
        "snapshotSequence": 1, "projects": [], "archivedThreads": [], "threads": [
            shell_row("p", "Parent", 0), shell_row(child, "Child", 1, parent="p")]}})
    sup.apply_shell({"kind": "synchronized"})
    v = sup.view(NOW)
    shown = short_id(child)
    assert shown.isprintable() and "fake row" in shown
    assert evidence_value(child).isprintable()
    buffer = io.StringIO()
    out = Console(file=buffer, width=200, color_system=None, highlight=False, emoji=False)
    print_lines(out, report(out, v))
    assert "\x1b" not in buffer.getvalue() and len(buffer.getvalue().splitlines()) == 5
    assert find_thread(v, shown).id == child


def test_an_empty_thread_argument_names_no_thread() -> None:
    sup = Supervisor()
    sup.apply_shell({"kind": "snapshot", "snapshot": {
        "snapshotSequence": 1, "projects": [], "archivedThreads": [],
        "threads": [shell_row("only", "", 0)]}})
    for text in ("", "  "):
        with pytest.raises(CommandError, match="no THREAD given"):
            find_thread(sup.view(NOW), text)


def test_watch_says_when_a_result_will_not_reach_its_parent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    finding = Finding("undelivered_result", CHILD_B, "undelivered-result",
                      "finished 2m ago; result pending and Panel has not run since", {}, at(100))
    Printer(ndjson=False).change(Change("finding", CHILD_B, "Review B", "done", "done",
                                        finding.reason, NOW, finding))
    assert capsys.readouterr().out.splitlines() == [
        "12:03:20  ⚑ undelivered  Review B  finished 2m ago; result pending and Panel has not run "
        "since  [undelivered-result]  → the parent was never told; t3tui forward review-b  review-b"]
    orphaned = Finding("orphaned_delivery", CHILD_B, "wake-disposed-while-running", "cohort stopped")
    Printer(ndjson=True).change(Change("finding", CHILD_B, "Review B", "running", "running",
                                       orphaned.reason, NOW, orphaned))
    import json
    record = json.loads(capsys.readouterr().out)
    assert record["notify"] == "orphaned" and record["finding"]["kind"] == "orphaned_delivery"


def test_watch_ndjson_gives_a_finding_the_remedy_status_json_gives_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from t3tui.model.findings import RUNAWAY_PROVIDER
    from t3tui.model.remedy import remedy
    from t3tui.model.status_json import finding_json

    runaway = Finding(RUNAWAY_PROVIDER, CHILD_B, "provider-runs-on", "the provider runs on",
                      {"runId": "run-b"}, at(100))
    stuck = Finding("stuck", CHILD_B, "no-progress", "running with no progress for 4m", {},
                    at(100))
    records = []
    for finding in (runaway, stuck):
        Printer(ndjson=True).change(Change("finding", CHILD_B, "Review B", "running", "running",
                                           finding.reason, NOW, finding))
        records.append(json.loads(capsys.readouterr().out)["finding"])
    assert records[0]["remedy"] == remedy(runaway) and remedy(runaway), records[0]
    assert "remedy" in records[1] and records[1]["remedy"] is None, records[1]
    # the same field, written by the same function, as `status --json` gives each finding
    assert [finding_json(f)["remedy"] for f in (runaway, stuck)] == [r["remedy"] for r in records]
