"""The `/` filter line (the app's `action_filter`, `action_apply_filter`, `action_clear_filter`
drive it)."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import Input


class FilterInput(Input):
    """The `/` filter line. Enter applies it and escape clears it, both at once (bindings run
    as the key arrives, keyroute.py), handing the tree its keys back."""

    BINDINGS = [Binding("enter", "app.apply_filter", "Apply", id="filter.apply"),
                Binding("escape", "app.clear_filter", "Clear filter", id="filter.clear")]

    def __init__(self, **kwargs: Any) -> None:
        # `/` again adds to the filter: no select-all that a Focus handled later would apply
        # to the letters already typed behind it
        super().__init__(select_on_focus=False, **kwargs)
