"""The supervisor app: the live tree, detail, timeline, status, and the user's actions.

The app owns no socket. Network work runs in workers that only post typed messages
(`messages.py`); the handlers below own every piece of UI state. One path, `refresh_view()`,
turns the model into pixels: on a coalesced stream update, on a connection change, on a
selection change, and once a second so times in state tick without rebuilding anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Header, Input

from t3tui.client.errors import describe
from t3tui.client.outcome import new_command_id
from t3tui.client.state import Connecting, ConnectionState, Failed, Live
from t3tui.model import SupervisorView, ThreadRow, changes
from t3tui.tui.actions import ActionsMixin
from t3tui.tui.config import TuiConfig
from t3tui.tui.filters import FilterError, RowFilter, parse_filter, visible_ids
from t3tui.tui.keys import ACTIONS, bindings
from t3tui.tui.labels import counts_text
from t3tui.tui.messages import (
    ActionStatus,
    ActionUpdate,
    ConnectionChanged,
    SourceEnded,
    StreamChanged,
)
from t3tui.tui.notify import Notice, grouped, notices
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.source import Source
from t3tui.tui.terminal import set_terminal_title
from t3tui.tui.widgets.panes import Banner, DetailPane, StatusBar, TimelineView
from t3tui.tui.widgets.thread_tree import ThreadTree

# Quiet time after the user's own interrupt: its consequences are not news.
OWN_ACTION_QUIET = timedelta(seconds=60)
NARROW = 100  # columns below which the tree takes more of the width
NOTICE_BATCH_S = 1.5


def utc_now() -> datetime:
    return datetime.now(UTC)


class FilterInput(Input):
    """The `/` filter line; escape clears it and gives the tree the focus back."""

    BINDINGS = [Binding("escape", "app.clear_filter", "Clear filter", id="filter.clear")]


class SupervisorApp(ActionsMixin, App[int]):
    """`SupervisorApp(source, config=..., clock=..., new_id=...)`; see the module docstring."""

    CSS_PATH = "styles.tcss"
    TITLE = "t3tui"
    BINDINGS = bindings()

    def __init__(
        self,
        source: Source,
        *,
        config: TuiConfig | None = None,
        clock: Callable[[], datetime] = utc_now,
        new_id: Callable[[], str] = new_command_id,
        tick: float | None = 1.0,
        handle_signals: bool = False,
    ) -> None:
        super().__init__()
        self.source = source
        self.config = config or TuiConfig()
        self.clock = clock
        self.new_id = new_id
        self.tick = tick
        self._handle_signals = handle_signals
        self.view: SupervisorView | None = None
        self.conn: ConnectionState = Connecting()
        self.row_filter = RowFilter()
        self.statuses: dict[str, dict[str, ActionStatus]] = {}
        self.sent_notices: list[Notice] = []
        self._pending_notices: list[Notice] = []
        self._synced_view: SupervisorView | None = None
        self._quiet: dict[str, datetime] = {}
        self._last_live: datetime | None = None
        self._gates: tuple[bool | None, ...] = ()
        self._title = ""
        self._startup_warning = ""
        if self.config.theme in self.available_themes:
            self.theme = self.config.theme
        else:
            known = ", ".join(sorted(self.available_themes))
            self._startup_warning = f"unknown theme {self.config.theme!r} (known: {known})"

    # -- layout --

    def compose(self) -> ComposeResult:
        yield Header()
        yield Banner(id="banner")
        with Horizontal(id="main"):
            yield ThreadTree(id="tree")
            with VerticalScroll(id="detail-scroll"):
                yield DetailPane(id="detail")
        yield TimelineView(id="timeline")
        yield FilterInput(placeholder="filter: words, !running @needs-input &stuck ~waiting",
                          id="filter", classes="-hidden")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        if self._handle_signals:
            # SIGTERM/SIGHUP end the app cleanly, so the caller's cleanup (the demo
            # backend) runs; Ctrl+C is a key in raw mode and quits through the bindings.
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGHUP):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(signum, self.exit, 128 + signum)
        if self.config.keys:
            self.set_keymap(dict(self.config.keys))
        if self._startup_warning:
            self.notify(self._startup_warning, title="config", severity="warning", timeout=10,
                        markup=False)
        self._fit(self.size.width)
        self.tree.focus()
        self.run_source()
        self.watch_connection()
        self.watch_stream()
        if self.tick:
            self.set_interval(self.tick, self.refresh_view, name="tick")
        self.refresh_view()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        self.main_screen.set_class(width < NARROW, "-narrow")
        for footer in self.query(Footer):
            footer.compact = width < NARROW

    async def on_unmount(self) -> None:
        await self.source.stop()

    # -- workers: they only post messages --

    @work(exclusive=True, group="source", exit_on_error=False)
    async def run_source(self) -> None:
        try:
            await self.source.run()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # every failure becomes a banner, never a traceback
            self.post_message(SourceEnded(describe(exc)))

    @work(exclusive=True, group="connection", exit_on_error=False)
    async def watch_connection(self) -> None:
        async for state in self.source.state.changes():
            self.post_message(ConnectionChanged(state))

    @work(exclusive=True, group="stream", exit_on_error=False)
    async def watch_stream(self) -> None:
        wake = asyncio.Event()
        stop = self.source.on_update(lambda _update: wake.set())
        try:
            while True:
                await wake.wait()
                wake.clear()
                self.post_message(StreamChanged())
        finally:
            stop()

    # -- handlers --

    def on_stream_changed(self, _message: StreamChanged) -> None:
        self.refresh_view()

    def on_connection_changed(self, message: ConnectionChanged) -> None:
        self.conn = message.state
        self.refresh_view()

    def on_source_ended(self, message: SourceEnded) -> None:
        if not isinstance(self.conn, Failed):
            self.conn = Failed(message.reason)
        self.refresh_view()

    def on_action_update(self, message: ActionUpdate) -> None:
        status = message.status
        self.statuses.setdefault(status.thread_id, {})[status.kind] = status
        if status.done:
            severity = {"ok": "information", "failed": "error"}.get(status.phase, "warning")
            # server and agent text: never markup
            self.notify(status.text, title=f"{status.kind} · {self._title_of(status.thread_id)}",
                        severity=severity, markup=False)  # type: ignore[arg-type]
        self.refresh_view()

    @on(ThreadTree.NodeHighlighted)
    def _selection_moved(self) -> None:
        self.refresh_view()

    @on(ThreadTree.OpenRequested)
    def _open_requested(self, message: ThreadTree.OpenRequested) -> None:
        self.action_open()

    @on(Input.Changed, "#filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        try:
            self.row_filter = parse_filter(event.value, problems_only=self.row_filter.problems_only)
            event.input.remove_class("-invalid")
            event.input.tooltip = None
        except FilterError as exc:
            event.input.add_class("-invalid")
            event.input.tooltip = Text(str(exc))
            self.notify(str(exc), title="filter", severity="warning", markup=False)
        self.refresh_view()

    @on(Input.Submitted, "#filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        if not event.value.strip():
            event.input.add_class("-hidden")
        tree = self.tree
        tree.focus()
        # Land on the first row that matches, not on an ancestor kept for context.
        first = next((r for r in self.view.rows if self.row_filter.matches(r)), None) \
            if self.view and self.row_filter.active else None
        if first is not None:
            tree.select_thread(first.id)
        self.refresh_view()

    # -- the one render path --

    @property
    def tree(self) -> ThreadTree:
        return self.main_screen.query_one(ThreadTree)

    def refresh_view(self) -> None:
        try:
            tree = self.tree
        except (NoMatches, IndexError):
            return  # not composed yet, or already torn down at exit
        if not tree.is_attached:
            return
        now = self.clock()
        view = self.source.supervisor.view(now)
        self.view = view
        live = isinstance(self.conn, Live)
        if live:
            self._last_live = now
        self._notify_transitions(view, now, live)
        screen = self.main_screen
        stale = self.conn.stale or not view.synchronized
        tree.sync(view, now, shown=visible_ids(view, self.row_filter), stale=stale)
        tree.set_class(stale, "-stale")
        counts = counts_text(view.counts)
        short = counts_text(view.counts, compact=self.size.width < NARROW)
        self.sub_title = short if view.rows else "no threads yet"
        title = f"t3tui · {counts}" + ("" if live else f" · {self.conn.kind}")
        if title != self._title:
            self._title = title
            set_terminal_title(self, title)
        selected = tree.selected_id
        row = view.row(selected) if selected else None
        statuses = list(self.statuses.get(row.id, {}).values()) if row else []
        hint = None
        if self.row_filter.active and not tree.nodes:
            hint = "No thread matches the filter (0 or escape clears it)."
        elif not view.rows:
            hint = "No threads on this server yet." if live else "Nothing to show yet."
        screen.query_one(DetailPane).show(row, view, self.source.transcripts, now, statuses,
                                        self.key_for("answer"), hint=hint)
        screen.query_one(TimelineView).show(row, view, self.source.transcripts, now)
        shown = len(tree.nodes)
        screen.query_one(StatusBar).show(self.source.label, self.conn,
                                       self.source.supervisor.cursor_shell, shown,
                                       len(view.rows), self.row_filter.describe())
        screen.query_one(Banner).show(self.source.label, self.conn, self._last_live,
                                      has_data=self.source.supervisor.cursor_shell is not None)
        if isinstance(self.screen, TranscriptScreen):
            tid = self.screen.thread_id
            self.screen.show(view.row(tid), self.source.transcripts.get(tid), now,
                             list(self.statuses.get(tid, {}).values()))
        self._refresh_gates()

    def _notify_transitions(self, view: SupervisorView, now: datetime, live: bool) -> None:
        # Only between two synchronized, live views: never replayed history, never the
        # catch-up after a reconnect half-applied.
        if not (live and view.synchronized):
            return
        previous, self._synced_view = self._synced_view, view
        found = notices(changes(previous, view), events=self.config.notify_on,
                        quiet=self._quiet, now=now)
        self.sent_notices.extend(found)
        if found and not self._pending_notices:
            # a short grace period: a burst of transitions becomes one toast per kind
            self.set_timer(NOTICE_BATCH_S, self._flush_notices)
        self._pending_notices.extend(found)

    def _flush_notices(self) -> None:
        found, self._pending_notices = self._pending_notices, []
        if self.config.toast:
            for notice in grouped(found):
                self.notify(notice.text, title=notice.event, severity=notice.severity,  # type: ignore[arg-type]
                            markup=False)
        if found and self.config.bell:
            self.bell()

    def _refresh_gates(self) -> None:
        gates = tuple(self.check_action(spec.action, ()) for spec in ACTIONS)
        if gates != self._gates:
            self._gates = gates
            self.refresh_bindings()

    # -- selection --

    @property
    def main_screen(self) -> Screen[object]:
        return self.screen_stack[0]

    def current_thread_id(self) -> str | None:
        """The thread an action would act on: the open transcript's, else the tree's cursor;
        None while a dialog is up."""
        screen = self.screen
        if isinstance(screen, TranscriptScreen):
            return screen.thread_id
        if screen is not self.main_screen:
            return None
        try:
            return self.tree.selected_id
        except (NoMatches, IndexError):
            return None  # torn down at exit

    def current_row(self) -> ThreadRow | None:
        thread_id = self.current_thread_id()
        if thread_id is None or self.view is None:
            return None
        return self.view.row(thread_id)

    def _title_of(self, thread_id: str) -> str:
        row = self.view.row(thread_id) if self.view else None
        return (row.title or row.id) if row else thread_id

    def quiet(self, thread_ids: Iterable[str]) -> None:
        until = self.clock() + OWN_ACTION_QUIET
        for thread_id in thread_ids:
            self._quiet[thread_id] = until

    def key_for(self, binding_id: str) -> str:
        spec = next(s for s in ACTIONS if s.id == binding_id)
        key = self.config.keys.get(binding_id, spec.key).split(",")[0]
        return self.get_key_display(Binding(key, spec.action))

    # -- command palette: every action, with the reason when it does not apply --

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for spec in ACTIONS:
            if spec.palette:
                yield SystemCommand(spec.label, spec.help,
                                    lambda action=spec.action: self.run_from_palette(action))
