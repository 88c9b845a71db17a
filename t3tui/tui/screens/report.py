"""The triage report in the app: the Markdown it wrote, rendered, and where the file is."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Label, Markdown


class ReportScreen(Screen[None]):
    """`escape` goes back. The Markdown quotes every piece of agent text (model/report)."""

    BINDINGS = [Binding("escape", "back", "Back", id="report.back")]

    def __init__(self, markdown: str, saved: str) -> None:
        super().__init__(classes="report")
        self._markdown = markdown
        self._saved = saved

    def compose(self) -> ComposeResult:
        yield Label(Text(f" Triage report · saved as {self._saved}"), id="report-title")
        with VerticalScroll(id="report-scroll"):
            yield Markdown(self._markdown, id="report", open_links=False)
        yield Footer()

    def action_back(self) -> None:
        self.dismiss(None)
