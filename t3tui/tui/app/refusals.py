"""Why a key does not apply, where that depends on the session rather than the thread: the
replay keys in a live session, the sending keys in a replay (pure; the app's `why_not` asks
here first, then the thread's own gates)."""

from __future__ import annotations

from t3tui.tui.app.keys import REPLAY_ACTIONS

# every action that sends something to a server: hidden in a replay
SENDING = frozenset({"settle", "checkin", "interrupt", "answer", "message", "stop_tree",
                     "forward", "dispose", "acknowledge"})
READ_ONLY = "a replay is read-only: nothing can be sent"
# the app forwards a result its parent was not told; to tell it again is a message of one's own
FORWARD_AGAIN = "to tell it again, send the parent a message of your own"


def session_refusal(action: str, *, replaying: bool, can_report: bool) -> str | None:
    if action in REPLAY_ACTIONS and not replaying:
        return "this is a live session: there is no recording to replay here"
    if action in SENDING and replaying:
        return READ_ONLY
    if action == "report" and not can_report:
        return "this session keeps no recording to write a report from"
    return None
