"""The supervisor app: the live tree, detail, timeline, status, and the user's actions.

The app owns no socket. Network work runs in workers that only post typed messages
(`messages.py`); the handlers below own every piece of UI state. The model reaches the screen
through `render.py`: stream changes, coalesced per frame, patch only the rows they changed;
a full view runs on a connection change, when the tree changed shape, and once a tick,
throttled, so keys never wait behind a refresh backlog.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input

from t3tui.client.errors import FatalError, describe
from t3tui.client.outcome import new_command_id
from t3tui.client.state import Connecting, ConnectionState, Failed
from t3tui.model import SupervisorView, ThreadRow
from t3tui.tui.app.actions import ActionsMixin
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.app.keyroute import TypingApp
from t3tui.tui.app.keys import ACTIONS, bindings
from t3tui.tui.app.messages import (
    ActionStatus,
    ActionUpdate,
    ConnectionChanged,
    SourceEnded,
    StreamChanged,
)
from t3tui.tui.app.policies import PoliciesMixin
from t3tui.tui.app.quitting import QuitMixin
from t3tui.tui.app.render import NARROW, RenderMixin
from t3tui.tui.app.toasts import ToastsMixin
from t3tui.tui.app.tree_actions import TreeActionsMixin
from t3tui.tui.app.triage_actions import TriageMixin
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.sources.source import Source
from t3tui.tui.view.filters import FilterError, RowFilter, parse_filter
from t3tui.tui.view.labels import display_text
from t3tui.tui.view.liveview import Throttle
from t3tui.tui.view.notify import Notice
from t3tui.tui.widgets.env_tree import EnvThreadTree
from t3tui.tui.widgets.filter_line import FilterInput
from t3tui.tui.widgets.footer import KeyFooter
from t3tui.tui.widgets.panes import Banner, DetailPane, StatusBar, TimelineView
from t3tui.tui.widgets.replay_bar import ReplayBar
from t3tui.tui.widgets.thread_tree import ThreadTree, TreeHeader

# Quiet time after the user's own interrupt: its consequences are not news.
OWN_ACTION_QUIET = timedelta(seconds=60)
SHORT = 32  # rows below which the timeline starts hidden (t shows it)
FULL_GAP = 4.0  # a full view waits 4x its own cost after the last: <= 1/5 of the loop


def utc_now() -> datetime:
    return datetime.now(UTC)


class SupervisorApp(QuitMixin, ToastsMixin, RenderMixin, TriageMixin, ActionsMixin,
                    TreeActionsMixin, PoliciesMixin, TypingApp):
    """`SupervisorApp(source, config=..., clock=..., new_id=...)`; see the module docstring."""

    CSS_PATH = "styles.tcss"
    TITLE = "t3tui"
    BINDINGS = bindings()
    LINE_ACTIONS = frozenset({"apply_filter", "clear_filter"})  # the filter line's own keys

    def __init__(
        self,
        source: Source,
        *,
        config: TuiConfig | None = None,
        clock: Callable[[], datetime] = utc_now,
        new_id: Callable[[], str] = new_command_id,
        tick: float | None = 1.0,
        handle_signals: bool = False,
        autopilot: bool = False,
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
        self._env_last_live: dict[str, datetime] = {}
        self._gates: tuple[bool | None, ...] = ()
        self._title = ""
        self._startup_warning = ""
        self._throttle = Throttle(FULL_GAP)
        self._row_index: dict[str, int] | None = None  # places in the view (render.py)
        self._full_wanted = False
        self._tick_due = False
        self._frame_timer: Timer | None = None
        self._frame_at: float | None = None
        self._last_frame = float("-inf")
        self._timeline_choice: bool | None = None  # the user's `t`; None: by terminal height
        self.raw_ids = False  # `v`: raw wire ids and key=value evidence instead of names
        # the embedded demo plays seed 004 by itself (autopilot.py); what it did, for the
        # status bar
        self.autopilot = autopilot
        self.autopilot_done: set[str] = set()
        self.demo_note = self.demo_short = ""
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
            with Vertical(id="tree-box"):
                header = TreeHeader(id="tree-header")
                environments = getattr(self.source, "environments", None)
                tree = (EnvThreadTree([e.name for e in environments], id="tree")
                        if environments else ThreadTree(id="tree"))
                tree.header = header
                yield header
                yield tree
            with VerticalScroll(id="detail-scroll"):
                yield DetailPane(id="detail")
        yield TimelineView(id="timeline")
        yield FilterInput(placeholder="filter: words, !running @needs-input &stuck ~waiting",
                          id="filter", classes="-hidden")
        if self.replaying:
            yield ReplayBar(id="replay-bar")
        yield StatusBar(id="status")
        yield KeyFooter()

    def get_driver_class(self) -> type[Driver]:
        """textual-serve's web driver (a `t3tui web` tab) ends the app with its input."""
        from textual.drivers.web_driver import WebDriver

        driver = super().get_driver_class()
        if driver is WebDriver:
            from t3tui.tui.tabdriver import TabDriver

            return TabDriver
        return driver

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
        self._fit(self.size.width, self.size.height)
        self.tree.focus()
        self.run_source()
        self.watch_connection()
        if getattr(self.source, "env_states", None) is not None:
            self.watch_environments()
        self.watch_stream()
        if self.tick:
            self.set_interval(self.tick, self._on_tick, name="tick")
        self.watch(self.tree, "scroll_y", self._on_scroll, init=False)
        self.refresh_view()

    def notify(self, message: str, *, title: str = "", **options: Any) -> None:
        """Every toast: agent and server text without terminal escapes."""
        super().notify(display_text(message), title=display_text(title, one_line=True), **options)

    def on_app_focus(self, _event: events.AppFocus) -> None:
        self._focus_reported, self._terminal_focused = True, True

    def on_app_blur(self, _event: events.AppBlur) -> None:
        self._focus_reported, self._terminal_focused = True, False

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        self.main_screen.set_class(width < NARROW, "-narrow")
        for footer in self.query(Footer):
            footer.compact = width < NARROW
        if self._timeline_choice is None:
            self.main_screen.query_one("#timeline").set_class(0 < height < SHORT, "-off")

    def show_timeline(self, on: bool) -> None:
        """The user's choice (`t`); from then on it holds at any terminal height."""
        self._timeline_choice = on
        self.main_screen.query_one("#timeline").set_class(not on, "-off")

    async def on_unmount(self) -> None:
        await self.source.stop()

    # -- workers: they only post messages --

    @work(exclusive=True, group="source", exit_on_error=False)
    async def run_source(self) -> None:
        try:
            await self.source.run()
        except asyncio.CancelledError:
            raise
        except FatalError as exc:  # a refused token: exit 2 with one line (quitting.py)
            self.failed_for_good(describe(exc))
        except Exception as exc:  # every failure becomes a banner, never a traceback
            self.post_message(SourceEnded(describe(exc)))

    @work(exclusive=True, group="connection", exit_on_error=False)
    async def watch_connection(self) -> None:
        async for state in self.source.state.changes():
            self.post_message(ConnectionChanged(state))

    @work(exclusive=True, group="environments", exit_on_error=False)
    async def watch_environments(self) -> None:
        """With several environments: redraw when any one's state changes (the overall
        state may stay the same, e.g. live while one of them drops)."""
        async for _states in self.source.env_states.changes():  # type: ignore[attr-defined]
            self.post_message(ConnectionChanged(self.source.state.value))

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
        if self.replaying:
            # the replay clock moved: time alone can change any row (dwells, deadlines)
            self._want_full()
            return
        self._schedule()

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
        if status.phase == "pending":
            self.policy_user_acted(status)
        if status.done:
            severity = {"ok": "information", "failed": "error"}.get(status.phase, "warning")
            # server and agent text: never markup
            self.notify(status.text, title=f"{status.name} · {self._title_of(status.thread_id)}",
                        severity=severity, markup=False)  # type: ignore[arg-type]
        self._patch([status.thread_id])

    @on(ThreadTree.NodeHighlighted)
    def _selection_moved(self) -> None:
        self._patch(self._selected())
        self.place_toasts()

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
            # Marked, not announced: "state:" is on the way to "state:idle" (enter says why);
            # meanwhile the rest of the line filters, never the text "state"
            event.input.add_class("-invalid")
            event.input.tooltip = Text(str(exc))
            self.row_filter = parse_filter(event.value, strict=False,
                                           problems_only=self.row_filter.problems_only)
        self.redraw()

    def action_apply_filter(self) -> None:
        box = self.main_screen.query_one("#filter", Input)
        try:
            # the text as it stands: its Changed message may not have been handled yet
            self.row_filter = parse_filter(box.value,
                                           problems_only=self.row_filter.problems_only)
        except FilterError as exc:
            self.notify(str(exc), title="filter", severity="warning", markup=False)
            return
        if not box.value.strip():
            box.add_class("-hidden")
        tree = self.tree
        self.stop_typing(tree)
        # Land on the first row that matches, not on an ancestor kept for context.
        first = next((r for r in self.view.rows if self.row_filter.matches(r)), None) \
            if self.view and self.row_filter.active else None
        if first is not None:
            tree.select_thread(first.id)
        self.redraw()

    # -- from the model to the screen --

    @property
    def tree(self) -> ThreadTree:
        return self.main_screen.query_one(ThreadTree)

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

    def conn_of(self, thread_id: str | None) -> ConnectionState:
        """The connection a thread's actions go through: its environment's, if several."""
        sources = getattr(self.source, "environments", None)
        if sources and thread_id is not None:
            name = thread_id.partition(":")[0]
            for env in sources:
                if env.name == name:
                    return env.state
        return self.conn

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
