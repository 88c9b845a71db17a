"""The status bar's changing parts: its sequence number, painted a few times a second,
not every frame.

Under load the stream's sequence moves hundreds of times a second and each frame (60 a
second) would paint the status bar again for it (~0.6 ms a paint). A number changing that
fast is read at a few paints a second; what must hold is that it is exact once the stream is
quiet: a change held back is painted by a trailing repaint `SEQUENCE_S` after the last paint.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.css.query import NoMatches

from t3tui.client.state import ConnectionState
from t3tui.tui.app.port import AppPort
from t3tui.tui.widgets.panes import StatusBar

SEQUENCE_S = 0.25  # at most 4 paints a second for the sequence alone


class ShownSequence:
    """Which sequence the status bar shows now; `repaint` is called when one held back is due."""

    def __init__(self, set_timer: Callable[..., Any], repaint: Callable[[], None]) -> None:
        self._set_timer = set_timer
        self._repaint = repaint
        self._shown: int | None = None
        self._at = float("-inf")
        self._timer: Any = None

    def shown(self, sequence: int | None) -> int | None:
        """`sequence`, or the one shown while the last paint of it is too recent."""
        if sequence == self._shown:
            return sequence
        now = time.monotonic()
        wait = self._at + SEQUENCE_S - now
        if self._shown is None or sequence is None or wait <= 0:
            self._shown, self._at = sequence, now
            return sequence
        if self._timer is None:
            self._timer = self._set_timer(wait, self._due, name="sequence")
        return self._shown

    def _due(self) -> None:
        self._timer = None
        self._repaint()



class StatusLine:
    """The status bar, shown by each frame's `show` and again when a held-back sequence is due."""

    def __init__(self, app: AppPort, state: Callable[[], ConnectionState] | None = None) -> None:
        """`state`: the connection's state as shown (`app.conn` unless given)."""
        self.app = app
        self._state = state or (lambda: app.conn)
        self._counts = (0, 0)  # rows shown, rows in the view: kept for a repaint of its own
        self._sequence = ShownSequence(app.set_timer, self.repaint)

    def show(self, shown: int, total: int) -> None:
        self._counts = (shown, total)
        self.repaint()

    def repaint(self) -> None:
        """The line again with the frame's counts (the sequence, the demo's note moved)."""
        app = self.app
        supervisor = app.source.supervisor
        try:
            bar = app.main_screen.query_one(StatusBar)
        except (NoMatches, IndexError):
            # a repaint due after the screen was torn down at exit (IndexError: no screen
            # left on the stack at all)
            return
        bar.show(app.source.label, self._state(), self._sequence.shown(supervisor.cursor_shell),
                 *self._counts, app.row_filter.describe(), note=app.demo_note,
                 short_note=app.demo_short, replay=app.triage.replaying,
                 watching=watching_text(supervisor), policies=app.policies.text)

def watching_text(supervisor: object) -> str:
    """"watching 300 of 340 active threads" when past the stream cap some are not watched."""
    ask = getattr(supervisor, "watching", None)  # the several-environment view has no cap
    watching = ask() if callable(ask) else None
    return watching.describe() if watching is not None and watching.unwatched else ""
