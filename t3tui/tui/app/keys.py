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
               "follow the thread's live transcript (escape: back)"),
    ActionSpec("settle", "s", "settle", "Settle",
               "settle; warns when children share its provider session"),
    ActionSpec("checkin", "c", "checkin", "Check-in",
               "send 'Reply exactly PONG', watch for it until a deadline"),
    ActionSpec("interrupt", "i", "interrupt", "Interrupt",
               "stop a run (a hung wait: its child's); a runaway: forced stop"),
    ActionSpec("stop_tree", "I", "stop_tree", "Stop tree",
               "interrupt the subtree deepest first; force-stop its runaways",
               show=False),
    ActionSpec("forward", "F", "forward", "Forward",
               "show, then send a child's undelivered result to its parent"),
    ActionSpec("dispose", "d", "dispose", "Dispose",
               "don't wake the parent for this child's task (server decides)", show=False),
    ActionSpec("acknowledge", "A", "acknowledge", "Acknowledge",
               "mark this child's result as seen by its parent (server decides)", show=False),
    ActionSpec("answer", "a", "answer", "Answer",
               "answer the thread's pending approval or question"),
    ActionSpec("message", "m", "message", "Message",
               "send the thread a message of your own"),
    ActionSpec("filter", "slash", "filter", "Filter",
               "filter by text; !running @input #idle &stuck ~waiting"),
    ActionSpec("problems", "p", "problems", "Problems",
               "only stuck, needs-input, serialized, phantom rows"),
    ActionSpec("clear_filter", "0", "clear_filter", "Clear filter",
               "clear every filter", show=False),
    ActionSpec("timeline", "t", "timeline", "Timeline",
               "show or hide the children timeline"),
    ActionSpec("report", "w", "report", "Report",
               "write a triage report on the thread (Markdown file) and show it"),
    ActionSpec("replay_play", "r", "replay_play", "Play/Pause",
               "replay: play or pause the replay clock"),
    ActionSpec("replay_speed", "right_square_bracket", "replay_speed", "Speed",
               "replay: speed x1, x10, x100"),
    ActionSpec("replay_step", "n", "replay_step", "Step",
               "replay: on to the next recorded event"),
    ActionSpec("replay_finding", "f", "replay_finding", "Next finding",
               "replay: on to the moment the next finding appears"),
    ActionSpec("replay_seek", "g", "replay_seek", "Go to",
               "replay: go to a time (05:17:45, +1m30s, -30s, start, end)"),
    ActionSpec("policies", "P", "policies", "Policies",
               "acting by policy on or off (unattended supervision; off at start)",
               show=False),
    ActionSpec("raw", "v", "raw", "Raw ids",
               "raw wire ids and key=value evidence, not names and stories",
               show=False),
    ActionSpec("copy_id", "y", "copy_id", "Copy id",
               "copy the thread's raw id (OSC 52, where the terminal allows it)", show=False),
    ActionSpec("help", "question_mark", "help", "Help", "this screen: keys, glyphs, filter syntax"),
    ActionSpec("quit", "q", "quit", "Quit",
               "quit (ctrl+c, ctrl+q too; an embedded demo backend stops too)",
               palette=False),
)
REPLAY_ACTIONS = frozenset(s.action for s in ACTIONS if s.action.startswith("replay_"))
BY_ID: dict[str, ActionSpec] = {spec.id: spec for spec in ACTIONS}


def bindings() -> list[Binding]:
    return [
        Binding(spec.key, spec.action, spec.label, show=spec.show, id=spec.id, tooltip=spec.help)
        for spec in ACTIONS
    ] + [
        # the terminal's convention (Textual's own ctrl+c only says "press ctrl+q"); ctrl+q
        # is Textual's, and quits too. Both go through `action_quit` (tui/quitting.py).
        Binding("ctrl+c", "quit", "Quit", show=False, id="quit.ctrl_c"),
    ]
