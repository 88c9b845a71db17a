"""The help screen's text: keys as currently mapped, state glyphs, filter syntax."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rich.text import Text

from t3tui.tui.app.keys import ACTIONS
from t3tui.tui.view.filters import SYNTAX_HELP
from t3tui.tui.view.labels import NATIVE_GLYPH, STATE_LOOK
from t3tui.tui.view.timeline import LEGEND

STATE_MEANING = {
    "needs-input": "blocked on an approval or a question: answer it",
    "stuck": "a rule says it is hung (the reason and evidence are in the detail pane)",
    "creating": "the task exists; its child thread or first run not yet",
    "queued": "its run is queued or preparing",
    "running": "its run is starting or running",
    "draining": "the provider finished; T3 is finalizing the run",
    "orphaned": "its run was stopped (or its wakes disposed) while children work: never told",
    "waiting": "its own run is over (or blocked in a wait) while children work",
    "done": "a child whose task finished (and whether the parent saw it)",
    "settled": "settled in the inbox; its own run is over (children may still work)",
    "idle": "nothing running",
}


def help_text(keys: Mapping[str, str], display: Callable[[str], str], *,
              stacked: bool = False) -> Text:
    """`keys`: binding id -> key string in force; `display`: key string -> what to show.
    `stacked` puts each description under its key (narrow terminals)."""
    text = Text()
    text.append("Keys\n", style="bold")
    for spec in ACTIONS:
        shown = ", ".join(display(k) for k in keys.get(spec.id, spec.key).split(","))
        text.append(f"  {shown:<10}", style="bold")
        text.append(f" {spec.label:<13}")
        text.append(f"\n{'':13}{spec.help}\n" if stacked else f" {spec.help}\n", style="dim")
    for key, what in (("↑ ↓ j k", "move"), ("space", "expand or collapse a parent"),
                      ("escape", "back from a transcript, clear the filter, close a dialog"),
                      ("ctrl+p", "command palette: every action by name"),
                      ("ctrl+c", "quit, as q (ctrl+q too); a stop in flight asks first")):
        text.append(f"  {key:<10}", style="bold")
        text.append(f" {what}\n", style="dim")
    text.append("\nStates (glyph + word, so colour is optional)\n", style="bold")
    for state, (glyph, word) in STATE_LOOK.items():
        text.append(f"  {glyph} {word:<12}")
        text.append(f" {STATE_MEANING[state]}\n", style="dim")
    text.append(f"  {NATIVE_GLYPH} native      ", style="")
    text.append(" provider-native child (cannot receive messages)\n", style="dim")
    text.append("  ⚑ marker      ", style="")
    text.append(" findings: stuck (also a stop that never landed), serialized, phantom,\n"
                "                 undelivered, orphaned, runaway (provider runs on after an\n"
                "                 interrupt: i offers the forced stop), duplicate\n"
                "                 (re-delegated after a dead wait)\n", style="dim")
    text.append("\nFilter (/)\n", style="bold")
    text.append(f"  {SYNTAX_HELP}\n", style="dim")
    text.append("\nTimeline\n", style="bold")
    text.append(f"  {LEGEND}\n", style="dim")
    text.append("\nConfig: ~/.config/t3tui/config.toml ([keys], [notifications], [checkin], [ui])",
                style="dim")
    return text
