"""The supervisor app: the live tree, detail, timeline, status, and the user's actions.

The app owns no socket. Network work runs in workers that only post typed messages
(`messages.py`); the handlers below own every piece of UI state. The model reaches the screen
through `render.py`: stream changes, coalesced per frame, patch only the rows they changed;
a full view runs on a connection change, when the tree changed shape, and once a tick,
throttled, so keys never wait behind a refresh backlog.

The app composes: each concern is a controller it holds (`renderer`, `feeds`, `actions`,
`filtering`, `tree_actions`, `triage`, `policies`, `quitting`), which reaches the app only
through `port.AppPort` and never imports this module. Key bindings' `action_*` methods are one-line delegations.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from textual import events, on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.screen import Screen
from textual.widgets import Footer, Header, Input

from t3tui.client.outcome import new_command_id
from t3tui.client.state import Connecting, ConnectionState, Failed
from t3tui.model import SupervisorView, ThreadRow
from t3tui.policy import PolicySet
from t3tui.policy.engine import Engine
from t3tui.tui.app.actions import Actions
from t3tui.tui.app.autopilot import STORY_LINGER_S
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.app.feeds import Feeds
from t3tui.tui.app.filtering import Filtering
from t3tui.tui.app.keyroute import TypingApp
from t3tui.tui.app.keys import ACTIONS, bindings
from t3tui.tui.app.messages import (
    ActionStatus,
    ActionUpdate,
    ConnectionChanged,
    SettleChecked,
    SourceEnded,
    StreamChanged,
)
from t3tui.tui.app.policies import Policies
from t3tui.tui.app.quitting import Quitting
from t3tui.tui.app.render import NARROW, Renderer
from t3tui.tui.app.toasts import ToastsMixin
from t3tui.tui.app.tree_actions import TreeActions
from t3tui.tui.app.triage_actions import ReportReady, Triage
from t3tui.tui.screens.paint import MainScreen, PromptPaint
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.sources.source import Source
from t3tui.tui.view.filters import RowFilter
from t3tui.tui.view.labels import display_text
from t3tui.tui.view.notify import Notice
from t3tui.tui.widgets.env_tree import EnvThreadTree
from t3tui.tui.widgets.filter_line import FilterInput
from t3tui.tui.widgets.footer import KeyFooter
from t3tui.tui.widgets.panes import Banner, DetailPane, StatusBar, TimelineView
from t3tui.tui.widgets.replay_bar import ReplayBar
from t3tui.tui.widgets.thread_tree import ThreadTree, TreeHeader

SHORT = 32  # rows below which the timeline starts hidden (t shows it)


def utc_now() -> datetime:
    return datetime.now(UTC)


def _to(controller: str, method: str) -> Callable[[SupervisorApp], None]:
    """A key's `action_*`: the controller's method, by name."""

    def action(self: SupervisorApp) -> None:
        getattr(getattr(self, controller), method)()

    action.__name__ = method
    return action


class SupervisorApp(ToastsMixin, TypingApp):
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
        self.last_live: datetime | None = None
        self._startup_warning = ""
        self.report_dir = Path(".")  # triage reports are written here (the working directory)
        self._timeline_choice: bool | None = None  # the user's `t`; None: by terminal height
        self.raw_ids = False  # `v`: raw wire ids and key=value evidence instead of names
        # the embedded demo plays seed 004 by itself (autopilot.py); what it did, for the
        # status bar
        self.autopilot = autopilot
        self.autopilot_done: set[str] = set()
        self.demo_note = self.demo_short = ""
        self.demo_linger_s = STORY_LINGER_S  # the demo's last note, once its story is told
        self.renderer = Renderer(self)
        self.feeds = Feeds(self)
        self.actions = Actions(self)
        self.filtering = Filtering(self)
        self.tree_actions = TreeActions(self)
        self.triage = Triage(self)
        self.policies = Policies(self)
        self.quitting = Quitting(self)
        self.fatal = self.quit_note = ""  # how it ended, for main.py (quitting.py)
        if self.config.theme in self.available_themes:
            self.theme = self.config.theme
        else:
            known = ", ".join(sorted(self.available_themes))
            self._startup_warning = f"unknown theme {self.config.theme!r} (known: {known})"

    # -- layout --

    def get_default_screen(self) -> Screen[object]:
        return MainScreen(id="_default")  # painted promptly (screens/paint.py)

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
        from t3tui.tui.termdriver import ours  # a web tab's, or the terminal's, as ours

        return ours(super().get_driver_class())

    def on_load(self) -> None:
        self.feeds.start()  # before composing: meanwhile, the handshake waits on the server

    def on_mount(self) -> None:
        if self._handle_signals:
            # SIGTERM/SIGHUP end the app cleanly, so the caller's cleanup (the demo
            # backend, the recording) runs, and its exit code says so (128+N, the shell's
            # convention); Ctrl+C is a key in raw mode and quits through the bindings.
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGHUP):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(signum, partial(self.exit, return_code=128 + signum))
        if self.config.keys:
            self.set_keymap(dict(self.config.keys))
        if self._startup_warning:
            self.notify(self._startup_warning, title="config", severity="warning", timeout=10,
                        markup=False)
        self._fit(self.size.width, self.size.height)
        self.tree.focus()
        if self.tick:
            self.set_interval(self.tick, self.renderer.on_tick, name="tick")
        self.watch(self.tree, "scroll_y", self.renderer.on_scroll, init=False)
        self.renderer.refresh_view()

    def notify(self, message: str, *, title: str = "", **options: Any) -> None:
        """Every toast: agent and server text without terminal escapes."""
        super().notify(display_text(message), title=display_text(title, one_line=True), **options)

    def on_app_focus(self, _event: events.AppFocus) -> None:
        self.renderer.terminal_focus(True)

    def on_app_blur(self, _event: events.AppBlur) -> None:
        self.renderer.terminal_focus(False)

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

    # -- handlers --

    def on_stream_changed(self, _message: StreamChanged) -> None:
        if self.replaying:
            # the replay clock moved: time alone can change any row (dwells, deadlines)
            self.renderer.want_full()
            return
        self.renderer.schedule()

    def on_connection_changed(self, message: ConnectionChanged) -> None:
        self.conn = message.state
        self.renderer.connection_changed()

    def on_source_ended(self, message: SourceEnded) -> None:
        if not isinstance(self.conn, Failed):
            self.conn = Failed(message.reason)
        self.renderer.refresh_view()

    def on_action_update(self, message: ActionUpdate) -> None:
        status = message.status
        self.statuses.setdefault(status.thread_id, {})[status.kind] = status
        if status.phase == "pending":
            self.policies.user_acted(status)
        if status.done:
            severity = {"ok": "information", "failed": "error"}.get(status.phase, "warning")
            # server and agent text: never markup
            self.notify(status.text, title=f"{status.name} · {self.title_of(status.thread_id)}",
                        severity=severity, markup=False)  # type: ignore[arg-type]
        self.renderer.patch([status.thread_id])

    def on_settle_checked(self, message: SettleChecked) -> None:
        self.actions.settle_checked(message)

    def on_report_ready(self, message: ReportReady) -> None:
        self.triage.report_ready(message)

    @on(ThreadTree.NodeHighlighted)
    def _selection_moved(self) -> None:
        self.renderer.patch(self.renderer.selected())
        self.place_toasts()

    @on(ThreadTree.OpenRequested)
    def _open_requested(self, message: ThreadTree.OpenRequested) -> None:
        self.action_open()

    @on(Input.Changed, "#filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        self.filtering.typed(event)

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

    def title_of(self, thread_id: str) -> str:
        row = self.view.row(thread_id) if self.view else None
        return (row.title or row.id) if row else thread_id

    def quiet(self, thread_ids: Iterable[str]) -> None:
        self.renderer.quiet(thread_ids)

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

    # -- what the controllers answer for the app (Textual and the keys ask the app) --

    @property
    def replaying(self) -> bool:
        return self.triage.replaying

    @property
    def policy_engine(self) -> Engine | None:
        return self.policies.engine

    def enable_policies(self, policies: PolicySet, **options: Any) -> None:
        self.policies.enable(policies, **options)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.actions.check_action(action, parameters)

    def why_not(self, action: str) -> str | None:
        return self.actions.why_not(action)

    def refused(self, action: str, reason: str) -> None:
        self.actions.refused(action, reason)

    def run_from_palette(self, action: str) -> None:
        self.actions.run_from_palette(action)

    def key_pressed(self) -> None:
        if isinstance(self.screen, PromptPaint):
            self.screen.hurry()
        self.renderer.key_pressed()

    def refresh_view(self) -> None:
        self.renderer.refresh_view()

    action_open, action_settle = _to("actions", "open"), _to("actions", "settle")
    action_interrupt, action_checkin = _to("actions", "interrupt"), _to("actions", "checkin")
    action_answer, action_message = _to("actions", "answer"), _to("actions", "message")
    action_filter, action_problems = _to("filtering", "open"), _to("filtering", "problems")
    action_apply_filter = _to("filtering", "apply")
    action_clear_filter = _to("filtering", "clear")
    action_raw, action_copy_id = _to("actions", "raw"), _to("actions", "copy_id")
    action_timeline, action_help = _to("actions", "timeline"), _to("actions", "help")
    action_stop_tree = _to("tree_actions", "stop_tree")
    action_forward = _to("tree_actions", "forward")
    action_dispose = _to("tree_actions", "dispose")
    action_acknowledge = _to("tree_actions", "acknowledge")
    action_report = _to("triage", "report")
    action_replay_play, action_replay_speed = _to("triage", "replay_play"), _to("triage", "replay_speed")
    action_replay_step = _to("triage", "replay_step")
    action_replay_finding = _to("triage", "replay_finding")
    action_replay_seek = _to("triage", "replay_seek")
    action_policies = _to("policies", "toggle")
    action_quit = _to("quitting", "quit")
