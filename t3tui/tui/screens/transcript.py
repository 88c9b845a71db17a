"""Open subagent: one thread's live transcript, followed as it streams; escape goes back."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Footer

from t3tui.client.errors import ClientError, describe
from t3tui.model import SupervisorView, ThreadRow
from t3tui.model.labels import one_line
from t3tui.tui.app.messages import ActionStatus
from t3tui.tui.screens.paint import PromptPaint
from t3tui.tui.sources.transcripts import History, HistoryUnavailable, MessageLine, Transcript
from t3tui.tui.view.detail import action_text, reason_text
from t3tui.tui.view.labels import RowStyles, age, clock, glyph, provider_text, word
from t3tui.tui.widgets.panes import StyledStatic
from t3tui.tui.widgets.replay_bar import ReplayBar
from t3tui.words.names import display_id, humanize

log = logging.getLogger(__name__)


def render_transcript(transcript: Transcript, styles: RowStyles, *,
                      view: SupervisorView | None = None, thread_id: str | None = None,
                      raw: bool = False) -> Text:
    messages = transcript.ordered_messages()
    if not messages:
        return Text("No messages yet (the thread's stream is being followed).", style=styles.dim)
    text = Text()
    for i, message in enumerate(messages):
        if i:
            text.append("\n\n")
        text.append(message.role, style=styles.finding)
        text.append(f"  {clock(message.created_at)} UTC", style=styles.dim)
        if message.streaming:
            text.append("  streaming…", style=styles.dim)
        text.append("\n")
        # agent text: plain, never markup; wire ids by name unless raw
        text.append(message.text if raw else humanize(message.text, view, thread_id))
    return text


def render_heading(row: ThreadRow | None, thread_id: str, now: datetime, styles: RowStyles,
                   actions: list[ActionStatus]) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    if row is None:
        text.append(f"{display_id(thread_id)} · not in the tree any more", style=styles.dim)
        return text
    state_style = styles.states.get(row.state)
    text.append(f"{glyph(row.state)} ", style=state_style)
    text.append(row.title or display_id(row.id), style=styles.title)
    text.append(f"  {word(row.state)} {age(row.state_since, now)}", style=state_style)
    reason = reason_text(row)
    if reason:
        text.append(" — ")
        text.append(humanize(reason, None, thread_id))
    provider = provider_text(row)
    if provider:
        text.append(f"  {provider}", style=styles.dim)
    for status in actions:
        text.append(f"\n{status.name}: ", style=styles.dim)
        text.append(action_text(status, now))
    return text


def older_note(dropped: int, status: str | None) -> str | None:
    """The one line above a transcript that is missing its `dropped` oldest messages:
    `status` says where reading them stands (None: read, or nothing is missing)."""
    if not dropped or status is None:
        return None
    held = "older message is not held" if dropped == 1 else "older messages are not held"
    return f"{dropped} {held}; {status}"


LOADING = "loading them…"
UNAVAILABLE = "this source cannot read them"


class TranscriptScreen(PromptPaint):
    """The app keeps calling `show()` while this screen is on top (painted promptly, as the
    main screen: paint.py)."""

    BINDINGS = [Binding("escape", "back", "Back", id="back")]

    def __init__(self, thread_id: str, *, replaying: bool = False) -> None:
        super().__init__(classes="transcript")
        self.thread_id = thread_id
        self.replaying = replaying  # a replay's bar under the transcript: its keys work here
        # the messages the app let go of, read from the source (`History`) while this screen
        # is open (let go with it); `older_status` says where that stands
        self.older: dict[str, MessageLine] = {}
        self.older_status: str | None = None
        self._shown: dict[str, Any] | None = None  # the last `show()`, to redraw after a read
        self._ending = False  # a scroll to the end is asked and not done yet
        self._asked = False  # the older messages were asked for (once per opening)

    def _read_older(self, dropped: int) -> None:
        """Read the messages the app let go of, once: when the transcript opens missing some,
        or when it grows past what the app holds while it is open."""
        if not dropped or self._asked:
            return
        self._asked = True
        source = getattr(self.app, "source", None)
        if not isinstance(source, History):
            self.older_status = UNAVAILABLE
            return
        self.older_status = LOADING
        self.run_worker(self._load_older(source), exit_on_error=False)

    async def _load_older(self, source: History) -> None:
        try:
            self.older = await source.history(self.thread_id)
            self.older_status = None
        except HistoryUnavailable as exc:
            self.older_status = one_line(str(exc))
        except ClientError as exc:  # (its text may come from the server: plain text)
            self.older_status = f"they could not be read: {one_line(str(exc))}"
        except Exception as exc:  # never a traceback, nor a note stuck at "loading"
            log.exception("reading the older messages of %s", self.thread_id)
            self.older_status = f"they could not be read: {one_line(describe(exc))}"
        self._redraw()

    def _redraw(self) -> None:
        """Show the last transcript again (a paused replay sends no frame to redraw it)."""
        source = getattr(self.app, "source", None)
        if self._shown is not None and source is not None and self.is_attached:
            self.show(transcript=source.transcripts.get(self.thread_id), **self._shown)

    def compose(self) -> ComposeResult:
        yield StyledStatic(id="transcript-heading")
        with VerticalScroll(id="transcript-scroll"):
            yield StyledStatic(id="transcript-body")
        if self.replaying:
            yield ReplayBar(id="replay-bar")
        yield Footer()

    def show(self, row: ThreadRow | None, transcript: Transcript, now: datetime,
             actions: list[ActionStatus], *, view: SupervisorView | None = None,
             raw: bool = False) -> None:
        self._shown = {"row": row, "now": now, "actions": actions, "view": view, "raw": raw}
        try:
            heading = self.query_one("#transcript-heading", StyledStatic)
            body = self.query_one("#transcript-body", StyledStatic)
            scroll = self.query_one("#transcript-scroll", VerticalScroll)
        except NoMatches:  # pushed, not composed yet (a frame came first): shown once it is
            return
        heading.set_text(render_heading(row, self.thread_id, now, heading.row_styles(), actions))
        # at the end, or on the way there: Textual scrolls after the next refresh, and what
        # comes in meanwhile (the older messages, read) finds the view not at its end yet
        follow = self._ending or scroll.scroll_y >= scroll.max_scroll_y - 1
        self._read_older(transcript.dropped)
        note = older_note(transcript.dropped, self.older_status)
        if self.older:
            transcript = transcript.with_older(self.older)
        rendered = render_transcript(transcript, body.row_styles(), view=view,
                                     thread_id=self.thread_id, raw=raw)
        if note:
            rendered = Text(note + "\n\n", style=body.row_styles().dim) + rendered
        if body.set_text(rendered) and follow:
            self._ending = True
            scroll.scroll_end(animate=False, on_complete=self._ended)

    def _ended(self) -> None:
        self._ending = False

    def action_back(self) -> None:
        self.dismiss(None)
