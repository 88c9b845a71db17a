"""State and row-part styles for the widgets that draw rows (tree, panes, transcript).

Colours live in `styles.tcss` as component classes, so the theme decides them; this is the one
place that turns those classes into the `RowStyles` the pure renderers take.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style

from t3tui.tui.view.labels import STATE_LOOK, RowStyles

if TYPE_CHECKING:
    from textual.widget import Widget

    _Base = Widget
else:
    _Base = object

STATE_CLASSES = tuple(f"state--{state}" for state in STATE_LOOK)
ROW_COMPONENTS = frozenset({*STATE_CLASSES, "row--title", "row--dim", "row--finding"})


class RowStyled(_Base):
    """Mixin: `row_styles()` for a widget whose `COMPONENT_CLASSES` include `ROW_COMPONENTS`.

    The styles are resolved once per styling of the widget: Textual forgets its per-component
    cache on every refresh, and resolving the 14 component styles again was most of a key
    press's work in a 10,000-thread tree (BENCHMARKS.md, issue 11). Textual builds new
    component style objects whenever it styles the widget again (theme, classes, focus), so
    holding the ones the styles came from tells when they are stale."""

    _row_styles: tuple[tuple[object, ...], RowStyles] | None = None

    def row_styles(self) -> RowStyles:
        sources = tuple(self._component_styles.values())
        kept = self._row_styles
        if kept is not None and len(kept[0]) == len(sources) and all(
                a is b for a, b in zip(kept[0], sources, strict=True)):
            return kept[1]

        def style(name: str) -> Style:
            return self.get_component_rich_style(name, partial=True)

        styles = RowStyles(
            states={state: style(f"state--{state}") for state in STATE_LOOK},
            title=style("row--title"),
            dim=style("row--dim"),
            finding=style("row--finding"),
        )
        self._row_styles = (sources, styles)
        return styles
