"""Typing mode: while an input is open, every key goes to it, never to an action.

Textual routes a key to whatever holds the focus when the key is handled, runs a key's
binding only once the key came back up from the focused widget (after every key already
queued), and `focus()` takes effect "later". Keys typed right after the one that opens an
input (in the same read of the terminal: a fast typist, a paste, a loaded machine) could
therefore reach the tree under an input that looked open: letters became settle and
check-in, enter opened a transcript (issue 21). So `TypingApp` decides where a key goes
before Textual routes it:

- a key is handled as it arrives (`_handle_now`: typed into the input that takes it, or its
  binding run), so the input a key opens is there for the next key, in order;
- an inline line on the main screen, while it is edited (`start_typing`), takes the focus
  back from wherever it went, at once, and the app's other actions are off (`typing_keys`):
  the footer shows the line's keys and no stray binding can fire;
- an input dialog (a screen with `wants_typing`) that has no input mounted yet holds the
  keys, in order, and hands them over as soon as its first input is there (`InputReady`);
- a key of the app's that does not apply says why (`run_action`, the app's `why_not`);
- enter or space typed before a question (a screen with `armed_at`) could be read do not
  answer it: a question that opens by itself must not take keys meant for what was under it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from textual import events
from textual.actions import ActionParseResult
from textual.app import App
from textual.dom import DOMNode
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input


class InputReady(Message):
    """An input dialog's first input is mounted and focused: held keys may go to it."""


class TypingApp(App[int]):
    """An app whose open inputs own the keys (see the module docstring)."""

    LINE_ACTIONS: frozenset[str] = frozenset()  # what the edited line's own keys run
    typing_line: Input | None = None  # the inline input being edited, on the main screen
    _held: list[events.Key] | None = None

    def key_pressed(self) -> None:
        """A key from the user, before it is routed (the app may note that someone is there)."""

    def why_not(self, action: str) -> str | None:
        """Why `action` does not apply now (the app says); None: it does, or no reason."""
        return None

    def refused(self, action: str, reason: str) -> None:
        """Say why a key did nothing (the app gives the action its name)."""
        self.notify(reason, title=action, severity="warning", markup=False)

    async def run_action(self, action: str | ActionParseResult,
                         default_namespace: DOMNode | None = None,
                         namespaces: Mapping[str, DOMNode] | None = None) -> bool:
        """A key of the app's own that does not apply says why, instead of nothing (dimmed
        or hidden in the footer is not an answer to a key pressed): it counts as handled."""
        if await super().run_action(action, default_namespace, namespaces):
            return True
        target, name, params = self._parse_action(
            action, self if default_namespace is None else default_namespace, namespaces)
        if target is not self or self.check_action(name, params):
            return False
        reason = self.why_not(name)
        if reason is None:
            return False
        self.refused(name, reason)
        return True

    def typing_keys(self) -> frozenset[str] | None:
        """While a line is edited, the actions its keys still run (the others' are text)."""
        if self.typing_line is not None and self.screen is self.screen_stack[0]:
            return self.LINE_ACTIONS
        return None

    def start_typing(self, line: Input) -> None:
        self.typing_line = line
        self.screen_stack[0].set_focus(line)

    def stop_typing(self, then: Widget) -> None:
        """The line is done: `then` has the keys again, now (not after a refresh)."""
        self.typing_line = None
        self.screen_stack[0].set_focus(then)

    def _typing_target(self) -> tuple[bool, Input | None]:
        """(whether an input owns the keys now, that input when it is mounted)."""
        screen = self.screen
        if getattr(screen, "wants_typing", False):
            if screen.focused is not None and not self._held:
                return False, None  # the user moved within the dialog: keys go where they chose
            inputs = screen.query(Input)
            return True, inputs.first() if inputs else None
        if screen is self.screen_stack[0] and self.typing_line is not None:
            return True, self.typing_line
        return False, None

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.MouseDown) and self.screen is self.screen_stack[0]:
            # a click is the user's own move (into the line or away from it): the focus is
            # theirs to place, and the line stays as typed
            self.typing_line = None
        if isinstance(event, events.Key) and not event.is_forwarded:
            self.key_pressed()
            if event.key in ("enter", "space") and \
                    time.monotonic() < getattr(self.screen, "armed_at", 0.0):
                self.bell()  # typed before the question could be read: not an answer
                return
            if not self._route(event):
                return
            await self._release_held()
            if await self._handle_now(event):
                return
        await super().on_event(event)

    def _route(self, key: events.Key) -> bool:
        """Give the input the focus before `key` is routed; False when the key is held."""
        wants, target = self._typing_target()
        if not wants:
            self._held = None  # the dialog closed before its input appeared: its keys go too
            return True
        if target is None:
            self._held = [*(self._held or ()), key]
            return False
        if target.screen.focused is not target:
            target.screen.set_focus(target)
        return True

    async def _handle_now(self, key: events.Key) -> bool:
        """Handle the key now, before the next key is routed: the text an input takes is
        typed into it, any other key runs its binding. Textual would run a binding once the
        key came back up from the focused widget, after every key already queued: `m`
        pushed its prompt (or `/` opened the filter) only when the keys typed after it had
        gone to the tree, and enter submitted a field before the letters typed ahead of it
        were in. False: neither (the key goes its usual way)."""
        focused = self.focused
        if focused is not None and focused.check_consume_key(key.key, key.character):
            if not isinstance(focused, Input):
                return False  # some other widget's text: its own way, as before
            await focused._on_key(key)  # what Textual runs for it, in order with bindings
            return True
        return await self._check_bindings(key.key, priority=True) or \
            await self._check_bindings(key.key)

    async def _release_held(self) -> None:
        held, self._held = self._held or [], None
        for key in held:
            fresh = events.Key(key.key, key.character)
            fresh.set_sender(self)
            await self.on_event(fresh)

    async def on_input_ready(self, _message: InputReady) -> None:
        _wants, target = self._typing_target()
        if self._held and target is not None:
            target.screen.set_focus(target)
            await self._release_held()
