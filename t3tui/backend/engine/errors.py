"""Errors the engine raises to the transport."""

from __future__ import annotations


class CommandRejected(Exception):
    """A command refused by a guard or invariant; sent as `OrchestrationV2DispatchCommandError`."""

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


class UnknownThread(KeyError):
    """No thread with this id exists."""

    def __init__(self, thread_id: str) -> None:
        super().__init__(thread_id)
        self.thread_id = thread_id

    def __str__(self) -> str:
        return f"Unknown thread {self.thread_id}."
