"""The app's pure parts on the showcase frames: labels, filters, gates, timeline, detail,
notifications, transcripts. No Textual app runs here."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rich.style import Style
from rich.text import Text

from t3tui.actions import interrupt_choices, unavailable
from t3tui.model import Change, SupervisorView
from t3tui.tui.screenshots import NEEDS_INPUT_CHILD, NOW, ORCHESTRATOR, REVIEW, STUCK_CHILD
from t3tui.tui.sources.frames import FrameSource, load_frames
from t3tui.tui.view.detail import evidence_lines, reason_text, render_detail
from t3tui.tui.view.filters import FilterError, RowFilter, parse_filter, visible_ids
from t3tui.tui.view.labels import (
    STATE_LOOK,
    RowStyles,
    counts_text,
    display_text,
    duration,
    screen_safe,
)
from t3tui.tui.view.notify import grouped, notices
from t3tui.tui.view.table import header, layout, render_row, row_cells
from t3tui.tui.view.timeline import bars, render_timeline, runs_at_once, waits_at_once
from t3tui.words.names import display_id, humanize, name_for
from t3tui.words.story import story

STYLES = RowStyles(states={s: Style() for s in STATE_LOOK})


@pytest.fixture(scope="module")
def showcase() -> FrameSource:
    source = FrameSource(load_frames("showcase"))
    source.apply_all()
    return source


@pytest.fixture(scope="module")
def view(showcase: FrameSource) -> SupervisorView:
    return showcase.supervisor.view(NOW)


def by_title(view: SupervisorView, title: str):
    return next(r for r in view.rows if r.title == title)


def test_showcase_holds_every_state(view: SupervisorView) -> None:
    assert {r.state for r in view.rows} == set(STATE_LOOK)


def test_every_state_has_its_own_glyph_and_word() -> None:
    glyphs = [g for g, _ in STATE_LOOK.values()]
    words = [w for _, w in STATE_LOOK.values()]
    assert len(set(glyphs)) == len(glyphs) and len(set(words)) == len(words)


def test_row_cells_read_without_colour(view: SupervisorView) -> None:
    cells = row_cells(view.row(REVIEW), NOW)
    assert (cells.glyph, cells.title, cells.state_word, cells.time) == (
        "◎", "Review panel", "waiting", "3m31s")
    assert cells.children == "2: 1▶ 1✔" and cells.provider == "codex/gpt-5"
    assert cells.finding == "⚑ serialized"


def test_tree_table_columns_line_up_on_every_row(view: SupervisorView) -> None:
    lay = layout(96)
    lines = [render_row(row_cells(r, NOW), 2 + 3 * r.depth, lay, STYLES).plain
             for r in view.rows]
    assert all(len(line) + 2 + 3 * r.depth == 96 for line, r in zip(lines, view.rows, strict=True))
    head = header(lay, 2)
    state_x = head.index("STATE")
    for line, row in zip(lines, view.rows, strict=True):
        at = state_x - 2 - 3 * row.depth  # the line starts after its guides and toggle
        assert line[at:].startswith(row_cells(row, NOW).state_word), line


@pytest.mark.parametrize(("width", "names"), [
    (150, ["state", "time", "children", "finding", "provider", "short_id"]),
    (96, ["state", "time", "children", "finding", "provider"]),
    (78, ["state", "time", "children", "finding"]),
    (46, ["state", "time", "finding"]),
])
def test_columns_leave_in_order_of_importance(width: int, names: list[str]) -> None:
    lay = layout(width)
    assert [c.name for c in lay.columns] == names
    assert lay.tree >= 14


def test_a_long_title_is_cut_with_an_ellipsis(view: SupervisorView) -> None:
    row = view.row(REVIEW)
    lay = layout(46)
    line = render_row(row_cells(row, NOW), 2, lay, STYLES).plain
    assert len(line) == 44 and "⚑ serial" in line and "waiting" in line
    long = render_row(row_cells(row, NOW).__class__(**{**row_cells(row, NOW).__dict__,
                                                       "title": "x" * 80}), 2, lay, STYLES)
    assert "x…" in long.plain and len(long.plain) == 44


def test_agent_text_is_never_markup(view: SupervisorView, showcase: FrameSource) -> None:
    row = view.row(NEEDS_INPUT_CHILD)
    text = render_detail(row, view, showcase.transcripts.get(row.id), NOW, STYLES).plain
    assert "Run [bold]migrations[/bold] on [red]prod[/red]? See [docs](https://x/y) [y/N]" in text
    assert "Allow `alembic upgrade head`?" in text  # the approval's prompt


def test_detail_names_rule_reason_and_evidence(view: SupervisorView,
                                               showcase: FrameSource) -> None:
    row = view.row(STUCK_CHILD)
    text = render_detail(row, view, showcase.transcripts.get(row.id), NOW, STYLES).plain
    assert "session-detached-by-other" in text
    # the evidence as a story: a timeline with the settling parent by name, raw on demand
    assert "12:01:40  → its provider session was detached by “Orchestrator”" in text
    assert "(v: raw evidence)" in text and "detachReason" not in text
    raw = render_detail(row, view, showcase.transcripts.get(row.id), NOW, STYLES, raw=True).plain
    assert "detachReason: Thread settled." in raw and "providerSessionId: ps-1" in raw
    assert STUCK_CHILD in raw and STUCK_CHILD not in text and "ready-1  (v: raw id)" in text
    assert "#1 completed 12:00:12 → 12:00:15 (3s)" in text and "#2 running" in text
    assert not reason_text(row).startswith("stuck")


def test_a_draining_run_is_explained(view: SupervisorView) -> None:
    build = by_title(view, "Build")
    assert build.state == "draining"
    assert "the provider finished the turn; T3 is finalizing the run" in build.state_reason


def test_serialized_evidence_reads_as_a_story(view: SupervisorView) -> None:
    sentence, timeline = story(view.row(REVIEW).findings[0], view, REVIEW)
    assert sentence.startswith("wait calls ran one at a time")
    assert timeline == ["12:01:28  the wait on “Reviewer A” (review-a) returned",
                        "12:01:28  → “Reviewer B” (review-b) created, 0.02 s later"]


def test_wire_ids_become_thread_names(view: SupervisorView) -> None:
    task = "node:delegated-task:command%3Amcp%3Asess-1%3Adelegate-task%3Aready-1"
    text = (f"Delegated task {task} reached a terminal state. Use task_status with taskId "
            f"{task} to read the result.")
    shown = humanize(text, view, ORCHESTRATOR)
    assert shown == ("Delegated task “Ready check” (ready-1) reached a terminal state. Use "
                     "task_status with taskId “Ready check” (ready-1) to read the result.")
    # an id of a thread the view does not know: its short id, never the raw one
    unknown = task.replace("ready-1", "gone-7")
    assert humanize(f"{unknown}: failed", view) == "gone-7: failed"
    # qualified by an environment, as in a multi-environment view
    assert name_for("laptop:" + task, None) == "ready-1"
    assert display_id(f"laptop:{STUCK_CHILD}") == "ready-1"


def test_evidence_lines_shorten_ids_and_times(view: SupervisorView) -> None:
    finding = view.row(REVIEW).findings[0]
    lines = evidence_lines(finding)
    assert any("previousReturnedAt=12:01:28" in line for line in lines)
    assert all(len(part) < 60 for line in lines for part in line.split(", "))


def test_counts_put_attention_first(view: SupervisorView) -> None:
    text = counts_text(view.counts)
    assert text.startswith("1 needs input · 1 stuck? · 1 orphaned · 5 running · 2 waiting")
    assert counts_text({}) == "nothing active"


@pytest.mark.parametrize(("seconds", "shown"), [(7, "7s"), (125, "2m05s"), (3840, "1h04m"),
                                                 (200000, "2d07h")])
def test_duration(seconds: int, shown: str) -> None:
    assert duration(seconds) == shown


def test_filters_keep_ancestors(view: SupervisorView) -> None:
    shown = visible_ids(view, parse_filter("compile"))
    assert {by_title(view, t).id for t in ("Compile", "Build", "Fan out")} == shown
    assert visible_ids(view, RowFilter()) is None
    stuck = visible_ids(view, parse_filter("&"))
    assert by_title(view, "Ready check").id in stuck and REVIEW not in stuck
    assert stuck == {by_title(view, "Ready check").id, ORCHESTRATOR}
    review = visible_ids(view, parse_filter("review panel"))
    assert {view.row(i).title for i in review} == {"Review panel", "Reviewer A", "Reviewer B"}


def test_problems_only(view: SupervisorView) -> None:
    shown = visible_ids(view, parse_filter("", problems_only=True))
    titles = {view.row(i).title for i in shown}
    assert {"Ready check", "Migrate DB", "Review panel"} <= titles
    assert "Scratch" not in titles and "Tests" not in titles


def test_filter_errors_are_readable() -> None:
    with pytest.raises(FilterError, match="no such state 'sleepy'; the states are: "):
        parse_filter("state:sleepy")
    assert parse_filter("state:needs_input").states == frozenset({"needs-input"})


def test_prefix_spelled_as_in_the_help_is_the_state_alone() -> None:
    # The help shows `!running @input #idle &stuck ~waiting`: typed as shown, the word after
    # the prefix names its state, so it must not also be required in the title.
    for typed, state in (("!running", "running"), ("@input", "needs-input"),
                         ("@needs-input", "needs-input"), ("#idle", "idle"),
                         ("&stuck", "stuck"), ("~waiting", "waiting")):
        assert parse_filter(typed) == RowFilter((), frozenset({state}))
    assert parse_filter("!lint") == RowFilter(("lint",), frozenset({"running"}))


def test_gates_explain_why(view: SupervisorView) -> None:
    running = by_title(view, "Compile")
    assert unavailable("settle", running, connected=True) == (
        "it has an active run (the server refuses to settle it)")
    assert unavailable("interrupt", by_title(view, "Scratch"), connected=True) == (
        "no active run to interrupt")
    assert unavailable("answer", view.row(NEEDS_INPUT_CHILD), connected=True) is None
    assert unavailable("checkin", by_title(view, "Docs"), connected=True) == (
        "the child thread does not exist yet")
    assert unavailable("checkin", running, connected=False) == "not connected to the server"
    assert unavailable("checkin", running, connected=True,
                       busy_actions=frozenset({"checkin"})).startswith("a checkin is already")
    assert unavailable("help", None, connected=False) is None


def test_interrupt_on_a_hung_wait_offers_the_child_first(view: SupervisorView) -> None:
    choices = interrupt_choices(view, view.row(REVIEW))
    assert [c.label for c in choices] == ["Stop child: Reviewer B", "Interrupt parent run"]
    assert "will not wake it: Reviewer B" in choices[1].consequence
    forced = interrupt_choices(view, view.row(STUCK_CHILD), force=True)
    assert [c.key.split(":")[0] for c in forced] == ["run", "force"]


def test_unsettled_descendants(view: SupervisorView) -> None:
    titles = [r.title for r in view.unsettled_descendants(by_title(view, "Fan out").id)]
    assert titles == ["Migrate DB", "Tests", "Build", "Compile", "Lint", "Docs"]


def test_serialized_waits_do_not_overlap(view: SupervisorView, showcase: FrameSource) -> None:
    found = bars(view, view.row(REVIEW), showcase.transcripts, NOW)
    assert [b.title for b in found] == ["Reviewer A", "Reviewer B"]
    assert waits_at_once(found) == 1
    a, b = found
    assert a.wait_span[1] <= b.wait_span[0]
    text = render_timeline(view.row(REVIEW), found, 100, STYLES).plain
    assert "serialized" in text and "12:00:02" in text and "12:05:00" in text


def test_fan_out_children_overlap(view: SupervisorView, showcase: FrameSource) -> None:
    found = bars(view, by_title(view, "Fan out"), showcase.transcripts, NOW)
    assert runs_at_once(found) >= 2


def test_settle_risks_from_recorded_frames() -> None:
    import asyncio

    source = FrameSource(load_frames("showcase"), until="before-settle")
    source.apply_all()
    risks = asyncio.run(source.settle_risks(ORCHESTRATOR, [STUCK_CHILD]))
    assert [(r.child_id, r.session_id) for r in risks] == [(STUCK_CHILD, "ps-1")]


def test_notices_only_for_real_transitions() -> None:
    def change(old: str, new: str, tid: str = "t1") -> Change:
        return Change("state", tid, f"T {tid}", old, new, "why", NOW)

    found = notices([change("running", "stuck"), change("idle", "running"),
                     change("running", "done", "t2"), change("waiting", "idle", "t3"),
                     change("running", "needs-input", "t4")],
                    events=frozenset({"stuck", "needs-input", "finished"}), quiet={}, now=NOW)
    assert [(n.event, n.thread_id) for n in found] == [
        ("stuck", "t1"), ("finished", "t2"), ("finished", "t3"), ("needs-input", "t4")]
    quiet = notices([change("running", "done")], events=frozenset({"finished"}),
                    quiet={"t1": NOW + timedelta(seconds=5)}, now=NOW)
    assert quiet == []
    assert [n.text for n in grouped(found) if n.event == "finished"] == [
        "2 threads finished: T t2, T t3"]


def test_transcripts_follow_snapshots_and_events(showcase: FrameSource) -> None:
    transcript = showcase.transcripts.get(STUCK_CHILD)
    texts = [m.text for m in transcript.ordered_messages()]
    assert texts[-2:] == ["READY", "Reply exactly PONG"]
    assert [r.status for r in transcript.ordered_runs()] == ["completed", "running"]


def test_screen_safe_shows_escapes_inert_and_keeps_styles() -> None:
    text = Text("ok ")
    text.append("\x1b[31mred\x1b[0m", style="bold")
    text.append("\x1b]2;title\nnext\tcol\x00\x9b")
    safe = screen_safe(text)
    assert safe.plain == "ok ␛[31mred␛[0m␛]2;title\nnext\tcol␀\\x9b"
    bold = {i for s in safe.spans if s.style == "bold" for i in range(s.start, s.end)}
    assert bold == set(range(3, 15)) and {s.style for s in safe.spans} == {"bold"}
    plain = Text("nothing to drop\n")
    assert screen_safe(plain) is plain
    assert display_text("a\x1b[5;1Hb\x07c") == "a␛[5;1Hb␇c"


def test_undelivered_and_orphaned_results_notify_but_never_on_first_sight() -> None:
    from t3tui.model import Finding

    undelivered = Finding("undelivered_result", "c1", "undelivered-result", "finished 2m ago")
    orphaned = Finding("orphaned_delivery", "c2", "wake-disposed-while-running", "cohort stopped")
    found = notices(
        [Change("finding", "c1", "Wave three", "done", "done", "x", NOW, undelivered),
         Change("finding", "c2", "Crawl", "running", "running", "x", NOW, orphaned),
         Change("state", "p1", "Sweep", "running", "orphaned", "children orphaned (1 …)", NOW),
         # a thread seen for the first time with its finding: history, not news
         Change("finding", "c3", "Old", None, "done", "x", NOW, undelivered)],
        events=frozenset({"undelivered", "orphaned"}), quiet={}, now=NOW)
    assert [(n.event, n.thread_id) for n in found] == [
        ("undelivered", "c1"), ("orphaned", "c2"), ("orphaned", "p1")]
    assert "never reached the parent" in found[0].text and "forward" in found[0].text
    assert notices([Change("finding", "c1", "W", "done", "done", "x", NOW, undelivered)],
                   events=frozenset({"stuck"}), quiet={}, now=NOW) == []
    [group] = [n for n in grouped(found) if n.event == "orphaned"]
    assert group.text == "2 threads work for parents that will not be told: Crawl, Sweep"


def test_actions_are_named_in_words_not_by_their_binding_ids(view: SupervisorView,
                                                              showcase: FrameSource) -> None:
    # issue 21: "Stop_tree stop_tree outcome unknown" on screen
    from t3tui.tui.app.keys import ACTIONS
    from t3tui.tui.app.messages import ActionStatus, action_name

    row = view.row(STUCK_CHILD)
    for kind in [s.id for s in ACTIONS] + ["stop_tree", "checkin"]:
        name = action_name(kind)
        assert "_" not in name and name[0].isupper(), kind
    assert action_name("stop_tree") == "Stop the tree" and action_name("checkin") == "Check-in"
    status = ActionStatus(row.id, "stop_tree", "unknown", "outcome unknown: socket closed", NOW)
    text = render_detail(row, view, showcase.transcripts.get(row.id), NOW, STYLES,
                         actions=[status]).plain
    assert "Stop the tree" in text and "stop_tree" not in text.lower()
    # a name longer than the field column does not run into its value
    assert "\nStop the tree\n          outcome unknown: socket closed" in text


def test_an_unanswered_check_in_says_what_the_provider_answered(
        view: SupervisorView, showcase: FrameSource) -> None:
    # The check-in line said "unanswered" while the finding beside it quoted the provider's
    # own record ending the turn with "PONG": both are true, so the line says both.
    from dataclasses import replace

    from t3tui.model.findings import Finding
    from t3tui.tui.app.messages import ActionStatus

    base = view.row(STUCK_CHILD)
    proof = Finding("provider_finished_unheard", base.id, "provider-finished-unheard",
                    "Codex finished this turn", {"lastMessage": "PONG", "driver": "codex",
                                                  "marker": "task_complete"}, NOW)
    status = ActionStatus(base.id, "checkin", "failed",
                          "check-in unanswered: no 'PONG' within 120s", NOW)

    def checkin_line(row) -> str:
        text = render_detail(row, view, showcase.transcripts.get(row.id), NOW, STYLES,
                             actions=[status]).plain
        return next(line for line in text.splitlines() if line.startswith("Check-in"))

    line = checkin_line(replace(base, findings=(*base.findings, proof)))
    assert "unanswered in T3" in line and "the provider answered PONG" in line
    # without the provider's record, it is unanswered, and nothing more is claimed
    assert "provider answered" not in checkin_line(base)
    other = replace(proof, evidence={**proof.evidence, "lastMessage": "still compiling"})
    assert "provider answered" not in checkin_line(replace(base, findings=(other,)))


def test_every_keys_help_fits_one_line_of_the_help_screen() -> None:
    """The help screen at the README's 140 columns has 65 columns for a key's text: a longer
    one wrapped under the key column ("text)" alone on a line, as two did)."""
    from t3tui.tui.app.keys import ACTIONS

    too_long = [a.key for a in ACTIONS if len(a.help) > 65]
    assert too_long == []
