"""State and row-part styles for the widgets that draw rows (tree, panes, transcript).

Colours live in `styles.tcss` as component classes, so the theme decides them; this is the one
place that turns those classes into the `RowStyles` the pure renderers take.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style

from t3tui.tui.labels import STATE_LOOK, RowStyles

if TYPE_CHECKING:
    from textual.widget import Widget

    _Base = Widget
else:
    _Base = object

STATE_CLASSES = tuple(f"state--{state}" for state in STATE_LOOK)
ROW_COMPONENTS = frozenset({*STATE_CLASSES, "row--title", "row--dim", "row--finding"})


class RowStyled(_Base):
    """Mixin: `row_styles()` for a widget whose `COMPONENT_CLASSES` include `ROW_COMPONENTS`."""

    def row_styles(self) -> RowStyles:
        def style(name: str) -> Style:
            return self.get_component_rich_style(name, partial=True)

        return RowStyles(
            states={state: style(f"state--{state}") for state in STATE_LOOK},
            title=style("row--title"),
            dim=style("row--dim"),
            finding=style("row--finding"),
        )
