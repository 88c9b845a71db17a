"""The real app driven by Pilot on recorded frames (frozen clock): in-place tree updates,
filters, gating, keymaps, dialogs, transcript, stale banner, and read-only outcomes."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from textual.widgets import Button, Static

from t3tui.client.state import Failed, Reconnecting
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.app.messages import StreamChanged
from t3tui.tui.screens.modals import ConfirmScreen, HelpScreen, PromptScreen
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.screenshots import (
    NEEDS_INPUT_CHILD,
    NOW,
    ORCHESTRATOR,
    REVIEW,
    STUCK_CHILD,
    settled,
    showcase_app,
)
from t3tui.tui.sources.frames import FrameSource, load_frames
from t3tui.tui.view.labels import glyph
from t3tui.tui.widgets.panes import Banner, StatusBar, TimelineView
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.model import factory as f
from tests.tui.question import SCRATCH, question_frames
from tests.tui.waiting import until

SIZE = (140, 40)


def plain(widget: Static) -> str:
    return str(widget.render())


def tree_of(app: SupervisorApp) -> ThreadTree:
    return app.query_one(ThreadTree)


def id_of(app: SupervisorApp, title: str) -> str:
    assert app.view is not None
    return next(r.id for r in app.view.rows if r.title == title)


async def select(pilot: Any, thread_id: str) -> None:
    assert tree_of(pilot.app).select_thread(thread_id)
    await pilot.pause()


async def test_tree_updates_in_place_and_keeps_cursor_and_expansion() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        tree = tree_of(app)
        await select(pilot, STUCK_CHILD)
        tree.nodes[id_of(app, "Fan out")].collapse()
        before = dict(tree.nodes)
        line = tree.cursor_line
        label = str(before[STUCK_CHILD].label)
        assert re.search(r"stuck\? +2m49s", label)

        app.clock = lambda: NOW + timedelta(seconds=5)  # time passes: labels tick in place
        app.refresh_view()
        await pilot.pause()
        assert re.search(r"stuck\? +2m54s", str(tree.nodes[STUCK_CHILD].label))
        assert all(tree.nodes[t] is node for t, node in before.items())

        # a new thread created before all others lands above the cursor
        row = f.shell_row("thread-early", "Early bird", -10, status="completed", run="run-e",
                          requested=-10, started=-10, completed=-5, updated=-5)
        app.source.supervisor.apply_shell(
            {"kind": "thread.updated", "sequence": 99999, "location": "active", "thread": row})
        app.refresh_view()
        await pilot.pause()
        assert set(tree.nodes) == set(before) | {"thread-early"}
        assert all(tree.nodes[t] is node for t, node in before.items())
        assert tree.selected_id == STUCK_CHILD and tree.cursor_line == line + 1
        assert not tree.nodes[id_of(app, "Fan out")].is_expanded

        # a filter removes rows and clearing it adds them back; expansion is kept by id
        await pilot.press("slash", *"compile", "enter")
        await until(lambda: set(tree.nodes) == {id_of(app, t) for t in
                                                ("Compile", "Build", "Fan out")})
        assert tree.selected_id == id_of(app, "Compile")
        await pilot.press("0")
        await until(lambda: len(tree.nodes) == len(before) + 1)
        assert tree.nodes[id_of(app, "Fan out")].is_expanded  # shown to reveal the match


async def test_problems_toggle_and_status_bar() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("p")
        shown = {app.view.row(t).title for t in tree_of(app).nodes}
        assert {"Ready check", "Migrate DB", "Review panel"} <= shown
        assert "Scratch" not in shown and "Tests" not in shown
        assert "problems only" in plain(app.query_one(StatusBar))
        await pilot.press("p")
        assert len(tree_of(app).nodes) == len(app.view.rows)


async def test_keys_are_gated_by_what_the_thread_allows() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await select(pilot, id_of(app, "Release notes"))
        assert app.check_action("settle", ()) is None       # already settled
        assert app.check_action("interrupt", ()) is None    # nothing running
        assert app.why_not("answer") == "no pending approval or question"
        await select(pilot, NEEDS_INPUT_CHILD)
        assert app.check_action("answer", ()) is True
        assert app.check_action("interrupt", ()) is True
        await pilot.press("s")  # gated: the child has an active run, nothing opens
        assert app.screen is app.main_screen


async def test_help_lists_remapped_keys_and_palette_has_every_action() -> None:
    source = FrameSource(load_frames("showcase"), until="before-settle")
    app = SupervisorApp(source, config=TuiConfig(keys={"settle": "S"}), clock=lambda: NOW,
                        tick=None)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_text = plain(app.screen.query_one("#help-body", Static))
        assert "S          Settle" in help_text and "◆ needs input" in help_text
        await pilot.press("escape")
        assert app.screen is app.main_screen

        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Open", "Settle", "Check-in", "Interrupt", "Answer", "Message", "Filter",
                "Problems", "Timeline", "Help"} <= titles

        await select(pilot, ORCHESTRATOR)
        await pilot.press("s")  # the default key no longer settles
        assert app.screen is app.main_screen
        await pilot.press("S")
        await until(lambda: isinstance(app.screen, ConfirmScreen))


async def test_settle_confirmation_warns_about_a_shared_session() -> None:
    app = showcase_app(until="before-settle")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await select(pilot, ORCHESTRATOR)
        await pilot.press("s")
        await until(lambda: isinstance(app.screen, ConfirmScreen))
        warning = plain(app.screen.query_one("#dialog-warning", Static))
        assert "Ready check (session ps-1)" in warning and "seed 004" in warning
        labels = [str(b.label) for b in app.screen.query(Button)]
        assert labels == ["Settle children first", "Settle anyway", "Cancel"]
        await pilot.press("escape")
        await until(lambda: app.screen is app.main_screen)
        assert "settle" not in app.statuses.get(ORCHESTRATOR, {})


async def test_a_read_only_source_says_outcome_unknown() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        scratch = id_of(app, "Scratch")
        await select(pilot, scratch)
        await pilot.press("s")
        await until(lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.click("#choice-0")
        await until(lambda: app.statuses.get(scratch, {}).get("settle") is not None
                    and app.statuses[scratch]["settle"].done)
        assert app.statuses[scratch]["settle"].phase == "unknown"
        assert "outcome unknown" in app.statuses[scratch]["settle"].text
        await pilot.press("c")
        await until(lambda: "checkin" in app.statuses[scratch]
                    and app.statuses[scratch]["checkin"].done)
        assert "read-only" in app.statuses[scratch]["checkin"].text


async def test_tree_table_rows_line_up_after_a_resize() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        tree = tree_of(app)

        def aligned() -> bool:
            width = tree.scrollable_content_region.width  # left of the scrollbar's column
            return all(len(node.label.plain) + tree._indent(node, app.view.row(tid)) == width
                       for tid, node in tree.nodes.items())

        assert aligned()
        wide = "PROVIDER" in str(tree.header.render()) if tree.header else False
        await pilot.resize_terminal(80, 24)
        await until(lambda: tree.size.width < 80 and aligned(), what="rows laid out again")
        head = str(tree.header.render()) if tree.header else ""
        assert "STATE" in head and "FOR" in head and "FINDING" in head and "PROVIDER" not in head
        await pilot.resize_terminal(*SIZE)
        await until(lambda: tree.size.width > 60 and aligned(), what="rows laid out again")
        assert wide == ("PROVIDER" in str(tree.header.render()))


async def test_mouse_click_selects_toggle_expands_double_click_opens() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        tree = tree_of(app)
        review_line = tree.nodes[REVIEW].line
        child = id_of(app, "Reviewer B")
        child_line = tree.nodes[child].line
        await pilot.click(ThreadTree, offset=(20, child_line - tree.scroll_offset.y))
        await until(lambda: tree.selected_id == child, what="the click selected the row")
        await pilot.pause()
        assert app.screen is app.main_screen  # one click selects, it does not open
        # a collapse that hides the selected row hands the cursor to the collapsed row
        await pilot.click(ThreadTree, offset=(0, review_line - tree.scroll_offset.y))
        await until(lambda: not tree.nodes[REVIEW].is_expanded, what="the toggle collapsed")
        assert tree.selected_id == REVIEW
        await pilot.click(ThreadTree, offset=(0, review_line - tree.scroll_offset.y))
        await until(lambda: tree.nodes[REVIEW].is_expanded, what="the toggle expanded")
        # toggling a row above the cursor keeps the cursor on its thread, not its line
        below = ORCHESTRATOR
        await select(pilot, below)
        await pilot.click(ThreadTree, offset=(0, review_line - tree.scroll_offset.y))
        await until(lambda: not tree.nodes[REVIEW].is_expanded, what="collapsed again")
        assert tree.selected_id == below
        await pilot.click(ThreadTree, offset=(0, review_line - tree.scroll_offset.y))
        await until(lambda: tree.nodes[REVIEW].is_expanded, what="expanded again")
        assert tree.selected_id == below
        await pilot.click(ThreadTree, offset=(20, child_line - tree.scroll_offset.y), times=2)
        await until(lambda: isinstance(app.screen, TranscriptScreen), what="the transcript")
        assert app.screen.thread_id == child


async def test_open_transcript_shows_agent_text_verbatim_and_escape_goes_back() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await select(pilot, NEEDS_INPUT_CHILD)
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, TranscriptScreen))
        body = plain(app.screen.query_one("#transcript-body", Static))
        assert "Run [bold]migrations[/bold] on [red]prod[/red]? See [docs](https://x/y)" in body
        heading = plain(app.screen.query_one("#transcript-heading", Static))
        assert "Migrate DB" in heading and "needs input" in heading
        assert app.check_action("answer", ()) is True  # actions follow the open thread
        await pilot.press("escape")
        await until(lambda: app.screen is app.main_screen)
        assert tree_of(app).selected_id == NEEDS_INPUT_CHILD


async def test_stale_banner_and_nothing_shown_as_live() -> None:
    app = showcase_app(state=Reconnecting(3, "connection refused"), stale=True)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await until(lambda: isinstance(app.conn, Reconnecting))
        banner = app.query_one(Banner)
        assert not banner.has_class("-hidden")
        assert "stale — reconnecting" in plain(banner) and "connection refused" in plain(banner)
        assert tree_of(app).has_class("-stale")
        assert "reconnecting (attempt 3)" in plain(app.query_one(StatusBar))
        assert "live" not in app.sub_title
        await select(pilot, id_of(app, "Scratch"))
        assert app.why_not("checkin") == "not connected to the server"


async def test_no_notification_for_history_seen_at_startup() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        app.clock = lambda: NOW + timedelta(seconds=1)
        app.refresh_view()  # a second synchronized view: nothing changed, nothing to say
        await pilot.pause()
        assert app.sent_notices == []
        assert len([r for r in app.view.rows if r.state == "stuck"]) == 1


async def test_a_parent_label_follows_its_children() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        tree = tree_of(app)
        assert "2: 1▶ 1✔" in str(tree.nodes[REVIEW].label)
        child = id_of(app, "Reviewer B")
        row = f.shell_row(child, "Reviewer B", 88.02, parent=REVIEW, status="waiting",
                          activity="waiting", run="run-review-b", requested=88.02,
                          started=88.02, updated=299.0)
        app.source.supervisor.apply_shell(
            {"kind": "thread.updated", "sequence": 99999, "location": "active", "thread": row})
        app.refresh_view()
        await pilot.pause()
        now_state = app.view.row(child).state
        assert now_state != "running"
        assert f"2: 1{glyph(now_state)} 1✔" in str(tree.nodes[REVIEW].label)


async def test_unknown_theme_is_a_warning_not_a_crash() -> None:
    app = SupervisorApp(FrameSource(load_frames("showcase")), config=TuiConfig(theme="nope"),
                        clock=lambda: NOW, tick=None)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert "unknown theme 'nope'" in app._startup_warning
        assert app.theme == "textual-dark"


async def test_a_question_is_answered_in_a_form() -> None:
    scratch = SCRATCH
    frames = question_frames("Which branch? [main/dev]")
    app = SupervisorApp(FrameSource(frames), config=TuiConfig(), clock=lambda: NOW, tick=None)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await select(pilot, scratch)
        assert app.view.row(scratch).state == "needs-input"
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, PromptScreen))
        labels = [str(w.render()) for w in app.screen.query(".field-label")]
        assert labels == ["Which branch? [main/dev]"]
        await pilot.press(*"dev", "enter")
        await until(lambda: app.statuses.get(scratch, {}).get("answer") is not None
                    and app.statuses[scratch]["answer"].done)
        assert app.statuses[scratch]["answer"].phase == "unknown"  # read-only frames


async def test_stream_changes_patch_rows_in_place_without_a_full_view() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        supervisor = app.source.supervisor
        full_views: list[object] = []
        view = supervisor.view
        supervisor.view = lambda now: full_views.append(now) or view(now)  # type: ignore[method-assign]
        tree = tree_of(app)
        await select(pilot, REVIEW)
        node = tree.nodes["thread-scratch"]
        running = app.view.counts["running"]

        def scratch(sequence: int, **run: Any) -> None:
            row = f.shell_row("thread-scratch", "Scratch", 7, **run)
            supervisor.apply_shell({"kind": "thread.updated", "sequence": sequence,
                                    "location": "active", "thread": row})
            app.post_message(StreamChanged())

        scratch(99990, status="running", activity="running", run="run-s2", requested=290,
                started=290, updated=290)
        await until(lambda: bool(re.search(r"running +10s", str(node.label))), what="the row patched")
        assert app.view.counts["running"] == running + 1
        assert f"{running + 1} running" in app.renderer._title
        scratch(99991, status="completed", run="run-s2", requested=290, started=290,
                completed=295, updated=295)
        await until(lambda: app.view.row("thread-scratch").state != "running")
        assert tree.nodes["thread-scratch"] is node and tree.selected_id == REVIEW
        assert [(n.event, n.thread_id) for n in app.sent_notices] == [
            ("finished", "thread-scratch")]  # a real transition, seen through the patch
        assert full_views == []

        # a new thread changes the tree's shape: only a full view knows where it goes
        early = f.shell_row("thread-early", "Early bird", -10, status="completed", run="run-e",
                            requested=-10, started=-10, completed=-5, updated=-5)
        supervisor.apply_shell({"kind": "thread.updated", "sequence": 99992,
                                "location": "active", "thread": early})
        app.post_message(StreamChanged())
        await until(lambda: "thread-early" in tree.nodes, what="the new thread in the tree")
        assert len(full_views) == 1 and tree.selected_id == REVIEW


async def test_a_short_terminal_starts_with_the_timeline_hidden_and_t_shows_it() -> None:
    app = showcase_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        await select(pilot, REVIEW)  # a parent with children: it has a timeline
        timeline = app.query_one(TimelineView)
        assert timeline.has_class("-off") and not timeline.display
        await pilot.press("t")
        assert not timeline.has_class("-off") and timeline.display and timeline.current
        await pilot.resize_terminal(80, 20)  # the user's choice holds at any height
        assert not timeline.has_class("-off")
    app = showcase_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await settled(pilot)
        assert not app.query_one(TimelineView).has_class("-off")


async def test_filter_warns_once_on_enter_not_per_keystroke() -> None:
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)

        def warnings() -> list[str]:
            return [n.message for n in app._notifications if n.title == "filter"]

        # "state:" .. "state:idl" are unknown states on the way to "state:idle": no toasts
        await pilot.press("slash", *"state:idle")
        assert app.row_filter.states == frozenset({"idle"})
        assert warnings() == []
        await pilot.press("enter", "slash", *" state:sleepy")
        assert warnings() == []
        assert "-invalid" in app.query_one("#filter").classes
        await pilot.press("enter")
        await until(lambda: warnings())
        assert len(warnings()) == 1 and warnings()[0].startswith("no such state 'sleepy'")
        assert app.focused is app.query_one("#filter")  # still there to be corrected


async def test_agent_escape_sequences_never_reach_the_terminal() -> None:
    # Rich passes ESC through: a title like this used to set the terminal's window title
    # and move the cursor over the tree.
    evil = "Evil\x1b]2;PWNED\x07 \x1b[31mred\x1b[0m\x1b[5;1Hmoved\x9b2J"
    app = showcase_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        row = f.shell_row("thread-evil", evil, -10, status="completed", run="run-x",
                          requested=-10, started=-10, completed=-5, updated=-5)
        app.source.supervisor.apply_shell(
            {"kind": "thread.updated", "sequence": 99999, "location": "active", "thread": row})
        app.refresh_view()
        tree = tree_of(app)
        await until(lambda: "thread-evil" in tree.nodes)
        await select(pilot, "thread-evil")
        app.notify(evil, title=evil)
        await pilot.pause()
        label = tree.nodes["thread-evil"].label.plain
        detail = app.query_one("#detail", Static).render()
        toast = next(n for n in app._notifications if n.message.startswith("Evil"))
        # the tree's title column cuts a long title with …
        assert label.startswith("○ Evil␛]2;PWNED␇ ␛[31mred") and "…" in label, label
        for shown in (label, str(detail), toast.message, toast.title):
            # shown inert and visible (wiretext.display_text), never sent to the terminal
            assert "Evil␛]2;PWNED" in shown, shown
            if shown is not label:
                assert "␛[5;1Hmoved\\x9b2J" in shown, shown
            assert not any(ch in shown for ch in "\x1b\x07\x9b"), repr(shown)


async def test_the_disconnected_banner_names_the_quit_key_in_force() -> None:
    source = FrameSource(load_frames("showcase"), label="x", final_state=Failed("gone"))
    app = SupervisorApp(source, config=TuiConfig(bell=False, keys={"quit": "Q"}),
                        clock=lambda: NOW, tick=None)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await until(lambda: isinstance(app.conn, Failed))
        banner = plain(app.query_one(Banner))
        assert "gone" in banner and "Press Q to quit." in banner, banner


class BellCountingApp(SupervisorApp):
    """The real app; only the terminal bell is counted instead of written."""

    # a relative CSS_PATH resolves next to the subclass: point at the app's own stylesheet
    CSS_PATH = str(Path(__import__("t3tui.tui.app.app").tui.app.__file__).with_name("styles.tcss"))
    bells = 0

    def bell(self) -> None:
        self.bells += 1


async def test_the_bell_rings_only_when_the_terminal_may_be_unseen() -> None:
    from textual import events

    from t3tui.tui.screenshots import NOW

    source = FrameSource(load_frames("showcase"), label="frames")
    app = BellCountingApp(source, config=TuiConfig(bell=True), clock=lambda: NOW, tick=None,
                          new_id=lambda: "cmd-fixed")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        supervisor = app.source.supervisor

        def scratch(sequence: int, **run: Any) -> None:
            row = f.shell_row("thread-scratch", "Scratch", 7, **run)
            supervisor.apply_shell({"kind": "thread.updated", "sequence": sequence,
                                    "location": "active", "thread": row})
            app.post_message(StreamChanged())

        async def finish_scratch(first_sequence: int, run: str) -> None:
            scratch(first_sequence, status="running", activity="running", run=run,
                    requested=290, started=290, updated=290)
            await until(lambda: app.view.row("thread-scratch").state == "running",
                        what="scratch running on screen")
            scratch(first_sequence + 1, status="completed", run=run, requested=290,
                    started=290, completed=295, updated=295)

        # a terminal that reports focus, and the user is looking: a toast, no bell
        app.post_message(events.AppFocus())
        await pilot.pause()
        await finish_scratch(99990, "run-s2")
        await until(lambda: len(app.sent_notices) == 1, what="the finished notice")
        await until(lambda: not app.renderer.pending_notices, timeout=5, what="the notice flushed")
        assert app.bells == 0
        # the user switched away: the next transition rings
        app.post_message(events.AppBlur())
        await pilot.pause()
        await finish_scratch(99992, "run-s3")
        await until(lambda: app.bells == 1, timeout=5, what="the bell while unfocused")
