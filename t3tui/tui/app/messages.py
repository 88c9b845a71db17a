"""Typed messages the workers post; the app's handlers own every piece of UI state."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from textual.message import Message

from t3tui.client.settle_guard import SharedSession
from t3tui.client.state import ConnectionState


class StreamChanged(Message):
    """The source applied new items. Coalesced: only the newest pending one is handled."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, StreamChanged)


class ConnectionChanged(Message):
    def __init__(self, state: ConnectionState) -> None:
        super().__init__()
        self.state = state


class SourceEnded(Message):
    """The source's run ended for good (a fatal error or a stop); `reason` is one line."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


@dataclass(frozen=True)
class ActionStatus:
    """An action on one thread: what it is, where it stands, and a line for the user.

    `phase`: `pending` (sent / waiting for the stream), `ok`, `failed` (refused, did not take
    effect in time) or `unknown` (the socket died before the server answered).
    """

    thread_id: str
    kind: str
    phase: str
    text: str
    started: datetime
    deadline: datetime | None = None
    detail: tuple[str, ...] = field(default=())

    @property
    def done(self) -> bool:
        return self.phase != "pending"

    @property
    def name(self) -> str:
        return action_name(self.kind)


# What an action is called on screen: a binding id (`stop_tree`) is for config files.
ACTION_NAMES = {"stop_tree": "Stop the tree", "checkin": "Check-in"}


def action_name(kind: str) -> str:
    """`stop_tree` -> "Stop the tree"; any other id in words, capitalised."""
    return ACTION_NAMES.get(kind) or kind.replace("_", " ").capitalize()


class ActionUpdate(Message):
    def __init__(self, status: ActionStatus) -> None:
        super().__init__()
        self.status = status


class SettleChecked(Message):
    """The settle pre-check is back: who shares the thread's provider session."""

    def __init__(self, thread_id: str, risks: list[SharedSession], unsettled: list[str]) -> None:
        super().__init__()
        self.thread_id = thread_id
        self.risks = risks
        self.unsettled = unsettled
