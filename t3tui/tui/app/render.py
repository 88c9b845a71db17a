"""The app's way from the model to the screen: `Renderer`, held by the app as `app.renderer`.

Two paths, one `_show()`. `patch()`, at most once a frame (`FRAME_S`), swaps the rows that
changed (`Supervisor.changed_rows`: rows whose facts changed, rows time changed, parents whose
children's states changed) into the last view and redraws those rows in place: O(rows
changed), so a key press never waits behind it. Once a tick (and when the tree scrolls) the
rows on screen are relabelled, for their ages. `refresh_view()` is a full `Supervisor.view`
(kept rows are reused, but the tree is walked: O(threads)): only on a connection change, when
the tree changed shape or most rows changed at once (a snapshot), throttled
(`liveview.Throttle`) so it takes at most a fifth of the event loop at any tree size. Nothing
O(threads) runs while events stream into a tree of a fixed shape.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime, timedelta

from textual.css.query import NoMatches
from textual.timer import Timer

from t3tui.client.state import ConnectionState, Live
from t3tui.model import SupervisorView, ThreadRow, changes
from t3tui.policy.resume import OwnPauseClock
from t3tui.tui.app.autopilot import next_step, story_told
from t3tui.tui.app.gates import Gates
from t3tui.tui.app.port import AppPort
from t3tui.tui.app.statusline import StatusLine
from t3tui.tui.app.terminal import set_terminal_title
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.view.env_render import (
    EnvStatus,
    env_banner,
    env_counts,
    env_detail,
    env_header,
    env_statuses,
    hold_rows,
)
from t3tui.tui.view.filters import visible_ids
from t3tui.tui.view.labels import counts_text
from t3tui.tui.view.liveview import Throttle, changes_among, patch_view, row_index
from t3tui.tui.view.notify import Notice, grouped, notices
from t3tui.tui.widgets.env_tree import EnvThreadTree, env_of
from t3tui.tui.widgets.panes import Banner, DetailPane, TimelineView, shown_state
from t3tui.tui.widgets.thread_tree import ThreadTree

NARROW = 100  # columns below which the tree takes more of the width
NOTICE_BATCH_S = 1.5
# Stream changes reach the screen at most this often, coalesced: the paint cap, 60 a second
# (at 30 an item waited up to 33 ms for its frame; BENCHMARKS.md, issue 25, third round).
FRAME_S = 1 / 60
PATCH_MAX = 200  # more changed rows than this (and than a quarter of all): a full view instead
FULL_GAP = 4.0  # a full view waits 4x its own cost after the last: <= 1/5 of the loop
# Quiet time after the user's own interrupt: its consequences are not news.
OWN_ACTION_QUIET = timedelta(seconds=60)


class Renderer:
    """The model to the screen (see the module docstring), and the notices of what changed:
    the frame schedule, the last full view's places, the title, the gates, the toasts and
    bell of transitions."""

    def __init__(self, app: AppPort) -> None:
        self.app = app
        self._throttle = Throttle(FULL_GAP)
        self._row_index: dict[str, int] | None = None  # places in the view
        self._full_wanted = False
        self._tick_due = False
        self._frame_timer: Timer | None = None
        self._frame_at: float | None = None
        self._last_frame = float("-inf")
        self._title = ""
        self.gates = Gates(app)
        self.status = StatusLine(app, state=self.shown_conn)
        self._env_last_live: dict[str, datetime] = {}
        self._synced_view: SupervisorView | None = None
        self._quiet: dict[str, datetime] = {}
        self.pending_notices: list[Notice] = []
        self._demo_told_at: datetime | None = None
        self._kept_filter: object = None  # the filter of the last sync (see `visible_ids`'s `keep`)
        # The bell is for a user looking elsewhere (user-needs: notify only when unfocused). A
        # terminal that reports focus tells us when that is; without reports we cannot know,
        # so we ring. The app's focus handlers tell `terminal_focus`.
        self._focus_reported = False
        self._terminal_focused = True
        self._derive_clock = OwnPauseClock(lambda: self.app.clock(), current=self._current)

    def now(self) -> datetime:
        """The time rows are derived at: live, one that leaves out the app's own pause until
        the streams have caught up (no false "stuck" after a suspend); a replay's, its own."""
        if self.app.tick and hasattr(self.app.source, "live_sessions") \
                and not self.app.triage.replaying:
            return self._derive_clock()
        return self.app.clock()

    def shown_conn(self) -> ConnectionState:
        """The connection's state as said: not "live" in the hold after the app's own pause."""
        return shown_state(self.app.conn, self._derive_clock.holding)

    def _current(self) -> bool:
        """Live and synchronized: the rows are now, not from before a pause of the app's own."""
        synced = getattr(self.app.source.supervisor, "synchronized", None)
        return isinstance(self.app.conn, Live) and (synced is None or bool(synced()))

    def terminal_focus(self, focused: bool) -> None:
        self._focus_reported, self._terminal_focused = True, focused

    def quiet(self, thread_ids: Iterable[str]) -> None:
        """The user's own stop: its consequences on these threads are not news for a while."""
        until = self.app.clock() + OWN_ACTION_QUIET
        for thread_id in thread_ids:
            self._quiet[thread_id] = until

    def _live_tree(self) -> ThreadTree | None:
        try:
            tree = self.app.tree
        except (NoMatches, IndexError):
            return None  # not composed yet, or already torn down at exit
        if not tree.is_attached:
            return None
        try:
            # at exit the screen is torn down piecewise: the tree (nested in its box) can
            # outlive the panes that `_show` fills
            self.app.main_screen.query_one(TimelineView)
        except NoMatches:
            return None
        return tree

    def selected(self) -> list[str]:
        tree = self._live_tree()
        selected = tree.selected_id if tree is not None else None
        return [selected] if selected else []

    def schedule(self, delay: float | None = None) -> None:
        """One frame for everything that arrived: at most one `_frame` per FRAME_S."""
        now = time.monotonic()
        if delay is None:
            delay = max(0.0, self._last_frame + FRAME_S - now)
        if self._frame_at is not None and self._frame_at <= now + delay:
            return
        if self._frame_timer is not None:
            self._frame_timer.stop()
        self._frame_at = now + delay
        self._frame_timer = self.app.set_timer(max(delay, 0.001), self._frame, name="frame")

    def want_full(self) -> None:
        self._full_wanted = True
        self.schedule(self._throttle.wait())

    def on_tick(self) -> None:
        # time alone: the model re-derives what a dwell or deadline changed (changed_rows);
        # the rows on screen are relabelled for their ages
        self._tick_due = True
        self.schedule(0.0)

    def on_scroll(self, _value: object = None) -> None:
        self._tick_due = True  # rows scrolled into view: their ages are read now
        self.schedule()

    def _frame(self) -> None:
        self._frame_timer = self._frame_at = None
        self._last_frame = time.monotonic()
        if self._full_wanted and self._throttle.wait() <= 0:
            self._tick_due = False
            self.refresh_view()
            return
        if self._full_wanted:
            self.schedule(self._throttle.wait())
        # a tick that must wait for its full view still ticks the rows on screen
        extra = self._on_screen() if self._tick_due else self.selected()
        self._tick_due = False
        self.patch(extra)

    def _on_screen(self) -> list[str]:
        tree = self._live_tree()
        if tree is None:
            return []
        top = tree.scroll_offset.y
        nodes = (tree.get_node_at_line(y) for y in range(top, top + tree.size.height))
        return [n.data for n in nodes if n is not None and n.data] + self.selected()

    def refresh_view(self) -> None:
        """A full view now: every row derived at the clock's time (O(threads))."""
        if self._live_tree() is None:
            return
        started = time.monotonic()
        self._full_wanted = False
        now = self.now()
        supervisor = self.app.source.supervisor
        view = supervisor.view(now)
        supervisor.take_dirty()  # the full view covers them
        self._row_index = None  # the rows may have new places
        self._show(view, now, None)
        self._throttle.record(started, time.monotonic())

    def connection_changed(self) -> None:
        """The connection's state moved: its look (banner, status, dimming, gates) is a frame's.
        A full view (35-115 ms at 5,000 threads, on the first keys as the app turns live) only
        when the view may read otherwise: not synchronized yet, or the model not, or several
        environments (whose view leaves out the ones down)."""
        view, supervisor = self.app.view, self.app.source.supervisor
        synced = getattr(supervisor, "synchronized", None)
        if view is None or not view.synchronized or synced is None or not synced():
            self.refresh_view()
            return
        self.patch(self.selected())

    def redraw(self) -> None:
        """Redraw every row of the current view (a filter changed): no rows re-derived."""
        self.patch(self.selected(), redraw=True)

    def patch(self, extra: Iterable[str] = (), *, redraw: bool = False) -> None:
        """Swap in the rows the stream changed, and `extra` rows, derived at the clock's time."""
        if self._live_tree() is None:
            return
        base = self.app.view
        if base is None:
            self.refresh_view()
            return
        supervisor = self.app.source.supervisor
        now = self.now()
        extra = list(extra)
        fresh = supervisor.changed_rows(now)
        if len(fresh) > max(PATCH_MAX, len(base.rows) // 4):
            # a snapshot or a resync changed most rows: one full view is cheaper than patching
            if self._throttle.wait() <= 0:
                self.refresh_view()
                return
            self.want_full()  # it covers these rows; meanwhile keep to the ones asked for
            fresh = {}
        for thread_id in extra:
            if thread_id not in fresh:
                fresh[thread_id] = supervisor.row(thread_id, now)  # kept: no re-derivation
        if self._row_index is None:
            self._row_index = row_index(base)  # once per full view: patches keep places
        patch = patch_view(base, fresh, now, self._row_index)
        if patch.reshaped or not patch.view.synchronized:
            self.want_full()
        flt = self.app.row_filter
        if flt.active and any(flt.matches(r) != flt.matches(base.by_id[r.id])
                              for r in patch.changed):
            redraw = True  # a row came into the filter or left it
        # `extra` rows too: equal data, but their age may read differently now
        again = [r for i in extra if (r := patch.view.row(i)) is not None]
        self._show(patch.view, now, patch.changed, None if redraw else (*patch.changed, *again))

    def _show(self, view: SupervisorView, now: datetime, changed: tuple[ThreadRow, ...] | None,
              relabel: Iterable[ThreadRow] | None = None) -> None:
        """Put `view` on screen. `changed`: the only rows that differ from the last view
        (None: any may). `relabel`: the only rows whose label may need redrawing (None: all)."""
        tree = self.app.tree
        base, self.app.view = self.app.view, view
        live = isinstance(self.app.conn, Live)
        self.app.policies.step(view, now, changed)
        if live:
            self.app.last_live = now
        self._notify_transitions(view, now, live, base, changed)
        screen = self.app.main_screen
        envs = self._environments(view, now)
        if envs:
            stale = all(e.state.stale for e in envs)
        else:
            stale = self.app.conn.stale or not view.synchronized
        stale = stale or self._derive_clock.holding  # rows from before the app's own pause
        if relabel is None or not tree.relabel(relabel, now, stale=stale):
            # under the same filter, the row under the cursor stays until the cursor moves; a
            # new filter shows what it matches, nothing else
            keep = tree.selected_id if self.app.row_filter == self._kept_filter else None
            self._kept_filter = self.app.row_filter
            tree.sync(view, now, shown=visible_ids(view, self.app.row_filter, keep), stale=stale)
        tree.set_class(stale, "-stale")
        counts = counts_text(view.counts)
        short = counts_text(view.counts, compact=self.app.size.width < NARROW)
        self.app.sub_title = short if view.rows else "no threads yet"
        said = self.shown_conn()  # not "live" in the hold after a pause of the app's own
        title = f"t3tui · {counts}" + ("" if isinstance(said, Live) else f" · {said.kind}")
        if title != self._title:
            self._title = title
            set_terminal_title(self, title)
        selected = tree.selected_id
        row = view.row(selected) if selected else None
        statuses = list(self.app.statuses.get(row.id, {}).values()) if row else []
        hint = None
        env = next((e for e in envs if isinstance(tree, EnvThreadTree)
                    and e.name == tree.selected_environment), None)
        if env is not None:
            hint = env_detail(env, env_counts(view).get(env.name))
        elif self.app.row_filter.active and not tree.nodes:
            hint = "No thread matches the filter (0 or escape clears it)."
        elif not view.rows:
            hint = "No threads on this server yet." if live else "Nothing to show yet."
        screen.query_one(DetailPane).show(row, view, self.app.source.transcripts, now, statuses,
                                        self.app.key_for("answer"), hint=hint, raw=self.app.raw_ids,
                                        raw_key=self.app.key_for("raw"),
                                        checkin_expect=self.app.config.checkin_expect,
                                        interrupt_key=self.app.key_for("interrupt"))
        screen.query_one(TimelineView).show(row, view, self.app.source.transcripts, now)
        shown = len(tree.nodes)
        if self.app.autopilot and changed is None and live:
            self._autopilot(view)
        self.status.show(shown, len(view.rows))
        if envs:
            text, failed = env_banner(envs, self.app.key_for("quit"))
            screen.query_one(Banner).show_text(text, failed=failed)
        else:
            screen.query_one(Banner).show(self.app.source.label, said, self.app.last_live,
                                          has_data=self.app.source.supervisor.cursor_shell is not None,
                                          quit_key=self.app.key_for("quit"))
        if isinstance(self.app.screen, TranscriptScreen):
            tid = self.app.screen.thread_id
            self.app.screen.show(view.row(tid), self.app.source.transcripts.get(tid), now,
                             list(self.app.statuses.get(tid, {}).values()), view=view,
                             raw=self.app.raw_ids)
        self.app.triage.show_replay_bar()
        self.gates.refresh()

    def key_pressed(self) -> None:
        """The user is at the keys: the demo's narration has had its say (a later step of
        its own still tells what it did)."""
        if self.app.demo_note:
            self.app.demo_note = self.app.demo_short = ""
            self.app.call_after_refresh(self.status.repaint)  # the note is the status line's

    def _autopilot(self, view: SupervisorView) -> None:
        """The demo's own seed 004 steps, each once, on full views (autopilot.py)."""
        if self.app.demo_note and "checkin" in self.app.autopilot_done and story_told(view):
            now = self.app.clock()
            self._demo_told_at = self._demo_told_at or now
            if (now - self._demo_told_at).total_seconds() >= self.app.demo_linger_s:
                self.app.demo_note = self.app.demo_short = ""  # the story is told
        step = next_step(view, frozenset(self.app.autopilot_done))
        if step is None:
            return
        self.app.autopilot_done.add(step.kind)
        self.app.policies.threads_of_autopilot |= {step.thread_id}
        self.app.demo_note, self.app.demo_short = step.note, step.short
        if step.kind == "settle":
            self.app.actions.settle_now(step.thread_id)
        else:
            self.app.actions.checkin_now(step.thread_id)

    def _environments(self, view: SupervisorView, now: datetime) -> list[EnvStatus]:
        """With several environments (`MultiSource`): each one's status, its tree node's
        label, and which environments' rows are dimmed. Empty with one server."""
        tree = self.app.tree
        sources = getattr(self.app.source, "environments", None)
        if not sources or not isinstance(tree, EnvThreadTree):
            return []
        envs = env_statuses(sources, now, self._env_last_live, self._derive_clock.holding)
        counts = env_counts(view)
        styles = tree.row_styles()
        compact = self.app.size.width < NARROW
        tree.set_environments(
            {e.name: env_header(e, counts.get(e.name), styles, compact=compact) for e in envs},
            stale={e.name for e in envs if e.state.stale})
        return envs

    def _notify_transitions(self, view: SupervisorView, now: datetime, live: bool,
                            base: SupervisorView | None,
                            changed: tuple[ThreadRow, ...] | None) -> None:
        # Only between two synchronized, live views: never replayed history, never the
        # catch-up after a reconnect half-applied.
        if not (live and view.synchronized):
            return
        previous, self._synced_view = self._synced_view, view
        if previous is None:
            return
        if changed is not None and previous is base:
            found_changes = changes_among(previous, view, [r.id for r in changed])
        else:
            found_changes = changes(previous, view)
        down = getattr(self.app.source, "down", None)
        gone = down() if down is not None else ()
        if gone:
            # An environment that is not live: its rows are not news now (its stream stopped,
            # or it is catching up), and they keep their last live look as the baseline, so
            # what changed there meanwhile is told once it is live again.
            found_changes = [c for c in found_changes if env_of(c.thread_id) not in gone]
            self._synced_view = hold_rows(previous, view, gone)
        found = notices(found_changes, events=self.app.config.notify_on, quiet=self._quiet, now=now)
        self.app.sent_notices.extend(found)
        if found and not self.pending_notices:
            # a short grace period: a burst of transitions becomes one toast per kind
            self.app.set_timer(NOTICE_BATCH_S, self.flush_notices)
        self.pending_notices.extend(found)

    def flush_notices(self) -> None:
        found, self.pending_notices = self.pending_notices, []
        if self.app.config.toast:
            for notice in grouped(found):
                self.app.notify(notice.text, title=notice.event, severity=notice.severity,  # type: ignore[arg-type]
                            markup=False)
        if found and self.app.config.bell and self._user_may_be_away():
            self.app.bell()

    def _user_may_be_away(self) -> bool:
        return not (self._focus_reported and self._terminal_focused)

