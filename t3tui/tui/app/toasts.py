"""The toast stack: coalesced, capped, and kept off the status line and the selected row.

Textual stacks every notification until it times out, so a busy tree (a burst of findings
and action outcomes) buried the tree, the detail and the status line. Here, every
notification that reaches the app:

- coalesces with a live toast of the same title saying the same thing (numbers aside): the
  older one goes, the newer says how many times (`x3`) and its clock starts again;
- is capped: at most `cap(height)` toasts; beyond that the least severe, oldest first, fold
  into one summary toast on top of the stack ("+4 more: finished x2, check-in"), as severe
  as what it holds;
- goes to the bottom right, above the status line (styles.tcss), or to the top right while
  at the bottom it would cover the tree's selected row.

The rack is Textual's (`ToastRack`); this mixin only decides what it holds. Textual 8.2.8 has
no public hook for that (`notify` only posts a `Notify`; the collection and its handler are
private), so this replaces App's `_on_notify`; tests/tui/test_toasts.py fails by name when an
upgrade changes those private hooks.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Any
from uuid import uuid4

from textual.css.query import NoMatches
from textual.notifications import Notification, Notify
from textual.widgets._toast import Toast, ToastRack

COUNT = re.compile(r" \(x\d+\)$")
DIGITS = re.compile(r"\d+")
SEVERITY = {"information": 0, "warning": 1, "error": 2}
TALL = 32  # rows from which three toasts fit; fewer rows get two


def cap(height: int) -> int:
    return 3 if height >= TALL else 2


def shape(note: Notification) -> tuple[str, str, str]:
    """What makes two toasts say the same: title, severity, and the text without its
    count or its numbers ("no progress for 2m49s" and "... 2m50s" are one story)."""
    return note.title, note.severity, DIGITS.sub("#", COUNT.sub("", note.message))


def summary_text(hidden: Counter[str]) -> str:
    kinds = ", ".join(k if n == 1 else f"{k} x{n}" for k, n in hidden.most_common())
    return f"+{sum(hidden.values())} more: {kinds}"


class ToastsMixin:
    """For the app: replaces Textual's `_on_notify`, which only adds to the stack."""

    _notifications: Any
    _toast_counts: dict[tuple[str, str, str], int]
    _toast_hidden: Counter[str]
    _toast_summary: Notification | None = None
    _placing_toasts = False

    def _on_notify(self, event: Notify) -> None:
        event.prevent_default()  # Textual's own handler (App's) would add it again
        if not self.screen_stack:  # type: ignore[attr-defined]
            return  # news still queued as the app ends: no screen left to show it on
        new = event.notification
        live = list(self._notifications)
        # how many times each live toast's story was told (a redrawn toast has a new identity)
        counts = {k: v for k, v in self.__dict__.get("_toast_counts", {}).items()
                  if any(shape(n) == k for n in live)}
        same = next((n for n in live if shape(n) == shape(new)), None)
        if same is not None:
            times = counts.get(shape(new), 1) + 1
            counts[shape(new)] = times
            new.message = f"{COUNT.sub('', new.message)} (x{times})"
            live.remove(same)
        self._toast_counts = counts
        live.append(new)
        summary = self._toast_summary if self._toast_summary in live else None
        shown = [n for n in live if n is not summary]
        limit = cap(self.size.height) - 1  # type: ignore[attr-defined]
        if summary is None and len(shown) <= limit + 1:
            self._set_toasts(shown)
            return
        if summary is None:
            self._toast_hidden = Counter()
        # the least severe go first, oldest first among equals: a stuck thread stays in sight
        order = sorted(range(len(shown)), key=lambda i: (SEVERITY.get(shown[i].severity, 0), i))
        gone = set(order[:max(0, len(shown) - limit)])
        hidden = [n for i, n in enumerate(shown) if i in gone]
        shown = [n for i, n in enumerate(shown) if i not in gone]
        self._toast_hidden.update(n.title or "notice" for n in hidden)
        worst = max([summary, *hidden] if summary else hidden,
                    key=lambda n: SEVERITY.get(n.severity, 0))
        self._toast_summary = Notification(
            summary_text(self._toast_hidden), title="", severity=worst.severity,
            timeout=max(n.time_left for n in [*hidden, *([summary] if summary else [])]),
            markup=False)
        # a new summary is drawn as a new toast; the rack appends new toasts at the bottom,
        # so the ones that stay are drawn anew too (same clock), below it
        self._set_toasts([self._toast_summary, *(replace(n, identity=str(uuid4()))
                                                 for n in shown)])

    def _set_toasts(self, notes: list[Notification]) -> None:
        self._notifications.clear()
        for note in notes:
            self._notifications.add(note)
        self._refresh_notifications()  # type: ignore[attr-defined]
        screen = self.main_screen  # type: ignore[attr-defined]
        # shutting down, the app stops running before its screens close: nothing to place
        if not self._placing_toasts and screen.is_running and self.is_running:  # type: ignore[attr-defined]
            # toasts are mounted and laid out later: place them once their size is known
            self._placing_toasts = True
            screen.screen_layout_refresh_signal.subscribe(
                self, lambda _screen: self.place_toasts())

    def place_toasts(self) -> None:
        """Top right while the bottom would cover the tree's selected row, else bottom."""
        if not self.screen_stack:  # type: ignore[attr-defined]
            return  # the app is ending (a selection moved as it went): no screen left
        if not len(self._notifications) or self.screen is not self.main_screen:  # type: ignore[attr-defined]
            return  # none, or a dialog or a transcript: no tree under the toasts
        try:
            rack = self.screen.get_child_by_type(ToastRack)  # type: ignore[attr-defined]
            tree = self.tree  # type: ignore[attr-defined]
        except (NoMatches, AttributeError):
            return
        toasts = [t.region for t in rack.query(Toast) if t.region.height]
        if not toasts:
            return
        height = max(r.bottom for r in toasts) - min(r.y for r in toasts)
        row = tree.region.y + tree.cursor_line - round(tree.scroll_offset.y)
        screen = self.size.height  # type: ignore[attr-defined]
        bottom = (screen - 2 - height, screen - 2)  # above the status line and the footer
        top = (1, 1 + height)  # under the header
        covers_tree = min(r.x for r in toasts) < tree.region.right

        def covers(span: tuple[int, int]) -> bool:
            return covers_tree and tree.region.y <= row < tree.region.bottom \
                and span[0] <= row < span[1]

        rack.set_class(covers(bottom) and not covers(top), "-top")
