"""Modal screens: confirm a destructive action, ask for text, show help."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from t3tui.tui.app.keyroute import InputReady
from t3tui.tui.view.labels import display_text, screen_safe


@dataclass(frozen=True)
class Choice:
    key: str
    label: str
    variant: str = "primary"   # Textual button variants: primary, warning, error, default


class ConfirmScreen(ModalScreen[str | None]):
    """Says what will happen, then returns the chosen key (None: cancelled).

    A question may open by itself (settle asks only after its check of shared sessions), under
    keys the user is already typing: enter or space that arrive before it has been on screen
    for ARM_S do nothing (`armed_at`, read by `TypingApp`), as browsers hold a permission
    prompt's buttons for a moment. A click, escape, and any key after that act at once.
    """

    ARM_S = 0.5

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="confirm.cancel"),
        Binding("left", "app.focus_previous", "Previous", show=False),
        Binding("right", "app.focus_next", "Next", show=False),
    ]

    def __init__(self, title: str, body: Text, choices: Sequence[Choice],
                 *, warning: Text | None = None) -> None:
        super().__init__(classes="confirm")
        self._title = display_text(title, one_line=True)  # thread titles, prompts, options: agent text
        self._body = screen_safe(body)
        self._warning = screen_safe(warning) if warning is not None else None
        self._choices = list(choices)
        self.armed_at = time.monotonic() + self.ARM_S

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Text(self._title), id="dialog-title")
            yield Static(self._body, id="dialog-body")
            if self._warning is not None:
                yield Static(self._warning, id="dialog-warning")
            with Horizontal(id="dialog-buttons"):
                for n, choice in enumerate(self._choices):
                    yield Button(Text(display_text(choice.label)), variant=choice.variant,  # type: ignore[arg-type]
                                 id=f"choice-{n}", name=choice.key)
                yield Button("Cancel", variant="default", id="choice-cancel", name="")

    def on_mount(self) -> None:
        self.armed_at = time.monotonic() + self.ARM_S  # from when it can be seen
        self._focus_first()

    def _focus_first(self) -> None:
        buttons = self.query(Button)
        if buttons:
            buttons.first().focus()
        else:  # its buttons were not mounted yet (seen on a loaded machine): after the refresh
            self.call_after_refresh(self._focus_first)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.name or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class Field:
    id: str
    label: str
    placeholder: str = ""


class FieldInput(Input):
    """A dialog's text field: enter moves on or submits at once (not by a message handled
    after the keys typed behind it), so those keys never land in a field being submitted."""

    BINDINGS = [Binding("enter", "screen.field_done", "Next", show=False, id="prompt.enter")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(select_on_focus=False, **kwargs)  # keys typed ahead stay typed


class PromptScreen(ModalScreen[dict[str, str] | None]):
    """One or more text fields; enter on the last submits, escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]
    wants_typing = True  # keys typed before its input is mounted wait for it (keyroute.py)

    def __init__(self, title: str, body: Text, fields: Sequence[Field],
                 *, submit: str = "Send") -> None:
        super().__init__(classes="prompt")
        self._title = display_text(title, one_line=True)
        self._body = screen_safe(body)
        self._fields = list(fields)
        self._submit = submit

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Text(self._title), id="dialog-title")
            yield Static(self._body, id="dialog-body")
            for field in self._fields:
                yield Label(Text(display_text(field.label)), classes="field-label")
                yield FieldInput(placeholder=field.placeholder, id=f"field-{field.id}",
                                 name=field.id)
            yield Static("", id="dialog-error")
            with Horizontal(id="dialog-buttons"):
                yield Button(self._submit, variant="primary", id="submit")
                yield Button("Cancel", variant="default", id="cancel")

    def on_mount(self) -> None:
        self.set_focus(self.query(Input).first())
        self.app.post_message(InputReady())

    def _values(self) -> dict[str, str]:
        return {i.name or "": i.value for i in self.query(Input)}

    def _submit_if_complete(self) -> None:
        values = self._values()
        missing = [f.label for f in self._fields if not values.get(f.id, "").strip()]
        if missing:
            self.query_one("#dialog-error", Static).update(
                Text(f"Needed: {', '.join(missing)}")
            )
            return
        self.dismiss(values)

    def action_field_done(self) -> None:
        inputs = list(self.query(Input))
        field = self.focused
        if field not in inputs or field is inputs[-1]:
            self._submit_if_complete()
        else:
            self.set_focus(inputs[inputs.index(field) + 1])  # type: ignore[arg-type]

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "submit":
            self._submit_if_complete()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """Every key (as currently mapped), the state glyphs and the filter syntax."""

    BINDINGS = [
        Binding("escape", "close", "Close", id="help.close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, content: Text) -> None:
        super().__init__(classes="help")
        self._content = content

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("t3tui · help", id="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(self._content, id="help-body")
            yield Label(Text("escape closes"), id="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)
