"""Every user action once: its binding id, default key, footer text and help text.

The app's `BINDINGS`, the help screen, the command palette and the config validation all
read this table, so a key remapped in the config file shows everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class ActionSpec:
    """One action: `id` is the binding id users remap; `action` the app action it runs."""

    id: str
    key: str
    action: str
    label: str
    help: str
    show: bool = True
    palette: bool = True


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("open", "enter", "open", "Open",
               "open the selected thread's live transcript (escape goes back)"),
    ActionSpec("settle", "s", "settle", "Settle",
               "settle the selected thread (warns when children share its provider session)"),
    ActionSpec("checkin", "c", "checkin", "Check-in",
               "send 'Reply exactly PONG' and watch for the answer until the deadline"),
    ActionSpec("interrupt", "i", "interrupt", "Interrupt",
               "interrupt the selected run (or, for a hung wait, the child or the parent's run)"),
    ActionSpec("answer", "a", "answer", "Answer",
               "answer the selected thread's pending approval or question"),
    ActionSpec("message", "m", "message", "Message",
               "send a free-text message to the selected thread"),
    ActionSpec("filter", "slash", "filter", "Filter",
               "filter rows by text and state (!running @needs-input #idle &stuck ~waiting)"),
    ActionSpec("problems", "p", "problems", "Problems",
               "toggle: show only stuck, needs-input, serialized and phantom rows"),
    ActionSpec("clear_filter", "0", "clear_filter", "Clear filter",
               "clear every filter", show=False),
    ActionSpec("timeline", "t", "timeline", "Timeline",
               "show or hide the children timeline"),
    ActionSpec("help", "question_mark", "help", "Help", "show every key and what the glyphs mean"),
    ActionSpec("quit", "q", "quit", "Quit", "quit (the embedded demo backend stops too)",
               palette=False),
)
BY_ID: dict[str, ActionSpec] = {spec.id: spec for spec in ACTIONS}


def bindings() -> list[Binding]:
    return [
        Binding(spec.key, spec.action, spec.label, show=spec.show, id=spec.id, tooltip=spec.help)
        for spec in ACTIONS
    ]
