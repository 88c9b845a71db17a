"""The demo tells its own story: with nobody at the keys, seed 004 plays out on its own threads.

The demo scenario starts "Settled by the demo (seed 004)", a parent whose child
(`demo-auto-child`) shares its provider session. Once the parent's run is over and the child
is done, the app settles the parent and then checks in on the child, through the same flows a
user's `s` and `c` run; the child's check-in turn is lost (the settle detached the session)
and the child turns stuck. The status bar says what the demo did by itself, until the user
presses a key or the story has been told for `STORY_LINGER_S`. The interactive
flows of the README keep their own threads ("Settle me, then check in on my child").

`next_step` is pure: the view in, the step due (if any) out.
"""

from __future__ import annotations

from dataclasses import dataclass

from t3tui.model import SupervisorView, ThreadRow
from t3tui.words.names import display_id

AUTO_CHILD = "demo-auto-child"  # the clientRequestId in scenarios/demo.json
STORY_LINGER_S = 30.0  # how long the last note stays once the story is told


@dataclass(frozen=True)
class Step:
    kind: str          # "settle" | "checkin"
    thread_id: str
    note: str          # the status bar's line
    short: str = ""    # the same in fewer words, for a narrow terminal


def _name(row: ThreadRow) -> str:
    return row.title or display_id(row.id)


def _quoted(name: str, width: int | None = None) -> str:
    if width is not None and len(name) > width:
        name = name[:width - 1] + "…"
    return f"“{name}”"


def settle_notes(parent: str) -> tuple[str, str]:
    """(the status line's note, its short form for a narrow terminal) of the settle step."""
    return (f"demo: settling {_quoted(parent)} by itself (seed 004: its child shares its "
            "provider session)…", f"demo: settling {_quoted(parent, 24)} (seed 004)…")


def checkin_notes(parent: str, child: str) -> tuple[str, str]:
    """(note, short form) of the check-in step; the short one fits an 80-column line."""
    return (f"demo: settled {_quoted(parent)} and checked in on {_quoted(child)} by itself: "
            "the reply is lost, watch the child turn stuck (seed 004)",
            f"demo: checked in on {_quoted(child, 17)}: it turns stuck (seed 004)")


def find_pair(view: SupervisorView) -> tuple[ThreadRow, ThreadRow] | None:
    """(parent, child) of the demo's own seed 004 pair, once both are in the view."""
    child = next((r for r in view.rows if r.parent_id and display_id(r.id) == AUTO_CHILD), None)
    parent = view.row(child.parent_id) if child is not None and child.parent_id else None
    return (parent, child) if parent is not None and child is not None else None


def story_told(view: SupervisorView) -> bool:
    """The demo's pair shows the end of its story: the parent settled, the child stuck."""
    pair = find_pair(view)
    return pair is not None and pair[0].settled and pair[1].state == "stuck"


def next_step(view: SupervisorView, done: frozenset[str]) -> Step | None:
    """The step the demo takes now, given the kinds of step already `done`."""
    if not view.synchronized or "checkin" in done:
        return None
    pair = find_pair(view)
    if pair is None:
        return None
    parent, child = pair
    if "settle" not in done:
        ready = (not parent.settled and parent.active_run_id is None
                 and parent.pending_request is None and child.state == "done")
        if not ready:
            return None
        return Step("settle", parent.id, *settle_notes(_name(parent)))
    if parent.settled and child.active_run_id is None:
        return Step("checkin", child.id, *checkin_notes(_name(parent), _name(child)))
    return None
