"""The key footer, with `? Help` and `q Quit` pinned to its right end.

Textual's footer lays the keys out left to right and crops what does not fit, so at 80
columns the last ones (help and quit, the two a new user looks for) were the ones lost.
Pinned keys are docked right, before the command palette key; that key is left out of a
compact footer (ctrl+p is on the help screen) for the room.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

PINNED = ("help", "quit")  # actions, in screen order


class KeyFooter(Footer):
    DEFAULT_CSS = """
    KeyFooter #pinned-keys {
        dock: right;
        width: auto;
        height: 1;
        padding-left: 1;
        background: $footer-background;
    }
    """

    def compose(self) -> ComposeResult:
        pinned: dict[str, FooterKey] = {}
        palette: FooterKey | None = None
        for widget in super().compose():
            action = getattr(widget, "action", "")
            if isinstance(widget, FooterKey) and action in PINNED:
                widget.add_class("-pinned")
                pinned[action] = widget
                continue
            if widget.has_class("-command-palette"):
                palette = None if self.compact else widget
                continue
            yield widget
        # one group: widgets docked to the same edge would overlap
        with HorizontalGroup(id="pinned-keys"):
            yield from (pinned[a] for a in PINNED if a in pinned)
            if palette is not None:
                palette.styles.dock = "none"
                yield palette
