"""Open subagent: one thread's live transcript, followed as it streams; escape goes back."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer

from t3tui.client.errors import ClientError
from t3tui.model import SupervisorView, ThreadRow
from t3tui.model.labels import one_line
from t3tui.tui.app.messages import ActionStatus
from t3tui.tui.sources.transcripts import MessageLine, Transcript
from t3tui.tui.view.detail import action_text, reason_text
from t3tui.tui.view.labels import RowStyles, age, clock, glyph, provider_text, word
from t3tui.tui.widgets.panes import StyledStatic
from t3tui.words.names import display_id, humanize


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


class TranscriptScreen(Screen[None]):
    """The app keeps calling `show()` while this screen is on top."""

    BINDINGS = [Binding("escape", "back", "Back", id="back")]

    def __init__(self, thread_id: str) -> None:
        super().__init__(classes="transcript")
        self.thread_id = thread_id
        # older messages than the app holds, loaded from the server while this screen is
        # open (let go with it); the note says where that stands
        self.older: dict[str, MessageLine] = {}
        self.older_note: str | None = None

    def on_mount(self) -> None:
        source = getattr(self.app, "source", None)
        load = getattr(source, "history", None)
        if load is not None and source.transcripts.get(self.thread_id).dropped:
            self.older_note = "loading older messages from the server…"
            self.run_worker(self._load_older(load), exit_on_error=False)

    async def _load_older(self, load: Any) -> None:
        try:
            self.older = await load(self.thread_id)
            self.older_note = None
        except ClientError as exc:
            self.older_note = f"older messages could not be loaded: {one_line(str(exc))}"

    def compose(self) -> ComposeResult:
        yield StyledStatic(id="transcript-heading")
        with VerticalScroll(id="transcript-scroll"):
            yield StyledStatic(id="transcript-body")
        yield Footer()

    def show(self, row: ThreadRow | None, transcript: Transcript, now: datetime,
             actions: list[ActionStatus], *, view: SupervisorView | None = None,
             raw: bool = False) -> None:
        heading = self.query_one("#transcript-heading", StyledStatic)
        heading.set_text(render_heading(row, self.thread_id, now, heading.row_styles(), actions))
        body = self.query_one("#transcript-body", StyledStatic)
        scroll = self.query_one("#transcript-scroll", VerticalScroll)
        follow = scroll.scroll_y >= scroll.max_scroll_y - 1
        if self.older:
            transcript = transcript.with_older(self.older)
        rendered = render_transcript(transcript, body.row_styles(), view=view,
                                     thread_id=self.thread_id, raw=raw)
        if self.older_note:  # (an error's text may come from the server: plain text)
            rendered = Text(self.older_note + "\n\n", style=body.row_styles().dim) + rendered
        if body.set_text(rendered) and follow:
            scroll.scroll_end(animate=False)

    def action_back(self) -> None:
        self.dismiss(None)
