"""The `/` filter line and the problems toggle: the app's `row_filter`, as the user edits it.

A controller the app holds (`app.filtering`). The line is in typing mode while open
(keyroute.py); a filter the line cannot read yet (`state:` on its way to `state:idle`) is
marked, not announced, and enter says why.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Input

from t3tui.tui.app.port import AppPort
from t3tui.tui.view.filters import FilterError, parse_filter


class Filtering:
    def __init__(self, app: AppPort) -> None:
        self.app = app

    def typed(self, event: Input.Changed) -> None:
        try:
            self.app.row_filter = parse_filter(event.value, problems_only=self.app.row_filter.problems_only)
            event.input.remove_class("-invalid")
            event.input.tooltip = None
        except FilterError as exc:
            # Marked, not announced: "state:" is on the way to "state:idle" (enter says why);
            # meanwhile the rest of the line filters, never the text "state"
            event.input.add_class("-invalid")
            event.input.tooltip = Text(str(exc))
            self.app.row_filter = parse_filter(event.value, strict=False,
                                           problems_only=self.app.row_filter.problems_only)
        self.app.renderer.redraw()

    def apply(self) -> None:
        box = self.app.main_screen.query_one("#filter", Input)
        try:
            # the text as it stands: its Changed message may not have been handled yet
            self.app.row_filter = parse_filter(box.value,
                                           problems_only=self.app.row_filter.problems_only)
        except FilterError as exc:
            self.app.notify(str(exc), title="filter", severity="warning", markup=False)
            return
        if not box.value.strip():
            box.add_class("-hidden")
        tree = self.app.tree
        self.app.stop_typing(tree)
        # Land on the first row that matches, not on an ancestor kept for context.
        first = next((r for r in self.app.view.rows if self.app.row_filter.matches(r)), None) \
            if self.app.view and self.app.row_filter.active else None
        if first is not None:
            tree.select_thread(first.id)
        self.app.renderer.redraw()

    def open(self) -> None:
        box = self.app.main_screen.query_one("#filter", Input)
        box.remove_class("-hidden")
        box.cursor_position = len(box.value)
        # Typing mode (keyroute.py): the keys typed right after `/` belong to the filter.
        self.app.start_typing(box)

    def problems(self) -> None:
        flt = self.app.row_filter
        self.app.row_filter = type(flt)(flt.words, flt.states, not flt.problems_only)
        self.app.renderer.redraw()

    def clear(self) -> None:
        box = self.app.main_screen.query_one("#filter", Input)
        box.value = ""
        box.add_class("-hidden")
        self.app.row_filter = type(self.app.row_filter)()
        self.app.stop_typing(self.app.tree)
        self.app.renderer.redraw()
