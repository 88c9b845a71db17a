"""The panes around the tree: detail, timeline, status bar and the connection banner.

Each is a `Static` whose content is rebuilt from plain `Text`; colours come from component
classes in `styles.tcss`, so the theme decides them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from t3tui.client.state import ConnectionState, Failed, Live, Reconnecting, Stale
from t3tui.model import SupervisorView, ThreadRow
from t3tui.tui.app.messages import ActionStatus
from t3tui.tui.sources.transcripts import TranscriptStore
from t3tui.tui.view.detail import render_detail
from t3tui.tui.view.labels import clock, screen_safe
from t3tui.tui.view.timeline import Bar, bars, render_timeline, timeline_parent
from t3tui.tui.widgets.row_styles import ROW_COMPONENTS, RowStyled


class StyledStatic(RowStyled, Static):
    """A `Static` that resolves state and row styles from its component classes."""

    COMPONENT_CLASSES = set(ROW_COMPONENTS)
    _shown: tuple[str, object, object] | None = None
    # True for a pane whose size its text cannot change (styles fix it): an update then
    # repaints it without a layout of the whole screen
    FIXED_SIZE = False

    def set_text(self, text: Text) -> bool:
        """Show `text` unless it is what is shown already (the app refreshes panes many times
        a second). True when it changed.

        A layout of the screen (every widget placed again, the tree's scrollbar redrawn: ~10
        ms at 5,000 threads) is asked only when the text's height at the pane's width is not
        the height laid out: a pane's width is its region's, only its height follows its
        text."""
        text = screen_safe(text)  # agent and server text: never a terminal escape
        key = (text.plain, text.spans, text.style)
        if key == self._shown:
            return False
        self._shown = key
        self.update(text, layout=False)
        if not self.FIXED_SIZE and not self._fits():
            self.refresh(layout=True)
            # a layout asked while one is still pending (the pane hidden, or not yet laid
            # out) is the pending one, which measures the old text: ask again once it ran
            self.call_after_refresh(self.refresh, layout=True)
        return True

    def _fits(self) -> bool:
        """Whether the text now set is as tall as the pane laid out (Textual's own measure,
        the one its layout takes for `height: auto`)."""
        width, height = self.content_size
        return bool(width) and self.get_content_height(self.content_size, self.content_size,
                                                       width) == height


class DetailPane(StyledStatic):
    """Everything about the selected thread."""

    def _fits(self) -> bool:
        """Also when the pane fills its window (styles: `min-height: 100%`) and the new text
        is no taller: the layout would give it the window's height again."""
        if super()._fits():
            return True
        window = self.parent.scrollable_content_region.height if isinstance(
            self.parent, Widget) else 0
        width, height = self.content_size
        return bool(width) and height == window and self.get_content_height(
            self.content_size, self.content_size, width) <= window

    def show(self, row: ThreadRow | None, view: SupervisorView | None,
             transcripts: TranscriptStore, now: datetime, actions: list[ActionStatus],
             answer_key: str, *, hint: str | None = None, raw: bool = False,
             raw_key: str = "v", checkin_expect: str = "PONG",
             interrupt_key: str = "i") -> None:
        if row is None and hint:
            self.set_text(Text(hint))
            return
        transcript = transcripts.get(row.id) if row is not None else transcripts.get("")
        self.set_text(render_detail(row, view, transcript, now, self.row_styles(),
                                    actions=actions, answer_key=answer_key,
                                    interrupt_key=interrupt_key, raw=raw,
                                    raw_key=raw_key, checkin_expect=checkin_expect))


class TimelineView(StyledStatic):
    """The selected parent's children on one time axis."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.current: list[Bar] = []
        self._of: ThreadRow | None = None  # the parent drawn
        self._drawn_width = 0  # the width the shown text was drawn for

    def show(self, row: ThreadRow | None, view: SupervisorView | None,
             transcripts: TranscriptStore, now: datetime) -> None:
        parent = timeline_parent(view, row) if view is not None else None
        self.set_class(parent is None, "-empty")
        if parent is None or view is None:
            self.current, self._of = [], None
            self.set_text(Text())
            return
        self.current, self._of = bars(view, parent, transcripts, now), parent
        self._draw()

    def _draw(self) -> None:
        if self._of is None:
            return
        self._drawn_width = self.content_size.width
        width = max(30, self._drawn_width or self.size.width or 60)
        self.set_text(render_timeline(self._of, self.current, width, self.row_styles()))

    def on_resize(self) -> None:
        """The axis and bars span the pane: drawn again when its width changes (a terminal
        resized, the pane shown again), without waiting for the app's next refresh (with a
        frozen or quiet clock, none comes). Not on a change of height alone: the text's own
        height sets that."""
        if self.content_size.width != self._drawn_width:
            self._draw()


@dataclass(frozen=True)
class AfterPause(Stale):
    """What is shown, not the socket's state: connected, but the rows are from before a pause
    of the app's own (a suspend, SIGSTOP) until its streams have caught up (the hold of
    `policy.resume.OwnPauseClock`); dimmed rows under a "live" would say they are current."""


def shown_state(state: ConnectionState, paused: bool) -> ConnectionState:
    """`state` as shown: `AfterPause` for a live connection while `paused` (the hold)."""
    return AfterPause() if paused and isinstance(state, Live) else state


def connection_word(state: ConnectionState) -> str:
    if isinstance(state, Reconnecting):
        return f"reconnecting (attempt {state.attempt})"
    return {"live": "live", "connecting": "connecting", "syncing": "syncing",
            "stale": "stale · catching up", "failed": "disconnected"}.get(state.kind, state.kind)


class StatusBar(StyledStatic):
    """Server, connection state, last sequence, rows shown and the filter in force."""

    # one line, the screen's width (styles: `#status`); its sequence changes every frame
    FIXED_SIZE = True

    def show(self, label: str, state: ConnectionState, sequence: int | None, shown: int,
             total: int, filter_text: str, *, note: str = "", short_note: str = "",
             replay: bool = False, watching: str = "", policies: str = "") -> None:
        """One line. When it does not fit (an 80-column terminal), the note (the demo's own
        story) comes right after the connection state in its short form, the sequence
        number goes, and the server's label is what the line's end cuts. `watching`: how
        many active threads are watched, when past the stream cap some are not."""
        styles = self.row_styles()
        dot_style = styles.states.get("running") if isinstance(state, Live) else (
            styles.states.get("stuck") if isinstance(state, Failed) else
            styles.states.get("needs-input"))
        Segs = list[tuple[str, Style | None]]
        head: Segs = [("● " if isinstance(state, Live) else "○ ", dot_style),
                      (connection_word(state), dot_style)]
        if replay:  # the recorded connection's state at the replay's moment: nothing is live
            head = [("◷ ", styles.dim), (f"recorded {connection_word(state)}", styles.dim)]
        where: Segs = [(" · ", None), (label, None)]
        count: Segs = [(f" · {shown}/{total} threads" if shown != total
                        else f" · {total} threads", styles.dim)]
        if watching:
            count.append((f" · {watching}", styles.finding))
        if policies:  # "policies on (3)": something may act by itself
            count.append((f" · {policies}", styles.finding))
        flt: Segs = [(" · filter: ", styles.dim), (filter_text, None)] if filter_text else []
        seq = f" · seq {sequence if sequence is not None else '—'}"
        segs = [*head, *where, (seq, styles.dim), *count, *flt]
        if note:
            segs += [(" · ", styles.dim), (note, styles.finding)]
        width = self.content_size.width
        if width and cell_len("".join(t for t, _ in segs)) > width:
            story: Segs = [(" · ", styles.dim), (short_note or note, styles.finding)] \
                if note or short_note else []
            segs = [*head, *story, *count, *flt, *where]
        text = Text(no_wrap=True, overflow="ellipsis")
        for part, style in segs:
            text.append(part, style=style)
        self.set_class(replay or not isinstance(state, Live), "-not-live")
        self.set_text(text)


def banner_text(label: str, state: ConnectionState, last_live: datetime | None,
                *, has_data: bool = True, quit_key: str | None = "q",
                not_live: str = "Nothing here is live.") -> str | None:
    """Why the data of `label` is not live, and since when; None while it is. `quit_key`
    None: no "press q" hint (other environments are still worth watching)."""
    since = f" Data shown is from {clock(last_live)} UTC." if last_live else ""
    if isinstance(state, Live):
        return None
    if isinstance(state, Reconnecting) and not has_data:
        return (f"◌ cannot connect to {label} (attempt {state.attempt}: "
                f"{state.last_error}); retrying.")
    if isinstance(state, Reconnecting):
        return (f"⚠ stale — reconnecting to {label} (attempt {state.attempt}: "
                f"{state.last_error}).{since} {not_live}")
    if isinstance(state, Failed):
        hint = f" Press {quit_key} to quit." if quit_key else ""
        return f"✖ disconnected from {label}: {state.reason}.{since}{hint}"
    if isinstance(state, AfterPause):
        return f"⚠ stale — catching up with {label} after t3tui was paused.{since}"
    if state.kind == "stale":
        return f"⚠ stale — reconnected to {label}, catching up.{since}"
    return f"◌ {state.kind} to {label}…"


class Banner(Static):
    """Visible whenever the data on screen is not live, saying why and since when."""

    _text: str | None = ""

    def show(self, label: str, state: ConnectionState, last_live: datetime | None,
             *, has_data: bool = True, quit_key: str = "q") -> None:
        """`has_data`: something was received once (so what is shown is stale, not absent);
        `quit_key`: the quit key as remapped."""
        self.show_text(banner_text(label, state, last_live, has_data=has_data,
                                   quit_key=quit_key), failed=isinstance(state, Failed))

    def show_text(self, text: str | None, *, failed: bool = False) -> None:
        """`text` (None hides the banner); `failed`: no more retries."""
        self.set_class(text is None, "-hidden")
        self.set_class(failed, "-failed")
        if text != self._text:
            self._text = text
            self.update(screen_safe(Text(text or "")))
