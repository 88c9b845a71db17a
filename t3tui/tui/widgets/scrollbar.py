"""A vertical scrollbar drawn again only when what it shows changed.

Textual (8.2.8, pinned) refreshes a scroll view's scrollbar at every layout of the screen: a
`ScrollView` compares the compositor's virtual size with its own, which a `Tree` keeps
apart (its lines), so they never match and `_scroll_update` refreshes the bar each time.
Each refresh then renders the whole bar through Rich again (~1.6 ms for a 40-line bar, more
than painting the tree's rows beside it, BENCHMARKS.md issue 25). The bar's look is a
handful of values (its size, the tree's length and window, the position, the colours), so
`SteadyScrollBar` skips a refresh that would draw the same bar and keeps its strips until
the look changes. It looks exactly like Textual's (the snapshot tests hold it to that).
"""

from __future__ import annotations

from typing import Any, Self

from textual.geometry import Region
from textual.scrollbar import ScrollBar

Look = tuple[Any, ...]


class SteadyScrollBar(ScrollBar):
    """Textual's scrollbar, redrawn only when its look changed."""

    _drawn: Look | None = None  # the look of the strips in the render cache

    def look(self) -> Look:
        """Everything the bar's strips depend on: what `render()` passes to the bar's renderer
        (sizes, position, colours, hover and grab), the bar's size and base style."""
        bar = self.render()
        return (self.size, self.visual_style, type(bar),
                *(getattr(bar, name, None) for name in
                  ("virtual_size", "window_size", "position", "thickness", "vertical", "style")))

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        if (not regions and repaint and not layout and not recompose
                and self._drawn is not None and self.is_mounted and self.parent is not None
                and self.look() == self._drawn):
            return self  # the bar on screen is this one already
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _render_content(self) -> None:
        # Textual's hook that renders every line of a widget once per refresh
        look = self.look()
        if look == self._drawn and self._render_cache.size == self.size:
            self._dirty_regions.clear()
            return
        super()._render_content()
        self._drawn = look
