"""The key footer, with `? Help` and `q Quit` pinned to its right end.

Textual's footer lays the keys out left to right and crops what does not fit, so at 80
columns the last ones (help and quit, the two a new user looks for) were the ones lost.
Pinned keys are docked right, before the command palette key; that key is left out of a
compact footer (ctrl+p is on the help screen) for the room.

Textual composes a footer again (every key unmounted and mounted: 20-60 ms) on each change
of the bindings, and an app's start changes them several times (focus, the actions' gates as
the first rows arrive, the width) while its first snapshot is on the way: here the changes
until a compose runs make one, and none when the keys would read the same.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.screen import Screen
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

    _shown: Any = None  # what the keys on screen were composed from
    _compose_due = False

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or self._compose_due:
            return
        if self.is_attached and screen is self.screen:
            self._compose_due = True
            self.call_after_refresh(self._compose_if_changed)

    async def _compose_if_changed(self) -> None:
        self._compose_due = False
        if self.is_attached and self._keys() != self._shown:
            await self.recompose()

    def _keys(self) -> Any:
        """What `compose` reads: the shown bindings, whether each is on, their tooltips."""
        if not self._bindings_ready:
            return None
        shown = tuple((binding, enabled, tooltip) for _, binding, enabled, tooltip
                      in self.screen.active_bindings.values() if binding.show)
        return shown, self.compact, self.show_command_palette, self.combine_groups

    def compose(self) -> ComposeResult:
        self._shown = self._keys()
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
