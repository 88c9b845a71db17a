"""Client errors: each carries a one-line, token-free reason fit to show a user."""

from __future__ import annotations

from typing import Any


class ClientError(Exception):
    """Base of every client error; `str(err)` is a one-line reason."""


class FatalError(ClientError):
    """Retrying cannot help (wrong protocol, authentication): stop and tell the user."""


class ProtocolMismatch(FatalError):
    """The server speaks a different orchestration protocol."""


class AuthenticationNeeded(FatalError):
    """The server refused the token or the ticket."""


class ConnectError(ClientError):
    """The server could not be reached or answered oddly; worth retrying. `refused`: nothing
    listens at that address (a refusal is an answer: a one-shot command need not wait)."""

    def __init__(self, message: str, *, refused: bool = False) -> None:
        super().__init__(message)
        self.refused = refused


def is_refusal(exc: BaseException) -> bool:
    """True when `exc` (or an exception it was raised from) is a refused TCP connection."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [exc]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return True
        stack += [current.__cause__, current.__context__,
                  *getattr(current, "exceptions", ())]
    return False


class ConnectionLost(ClientError):
    """The socket died, or was declared dead; in-flight requests end with this."""


class RpcFailure(ClientError):
    """A call ended with a failure `Exit`: a typed error, a defect or an interrupt."""

    def __init__(self, message: str, error: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.error = error or {}

    @property
    def tag(self) -> str | None:
        tag = self.error.get("_tag")
        return tag if isinstance(tag, str) else None


def describe(exc: BaseException) -> str:
    """A one-line reason for any exception, without a traceback."""
    if isinstance(exc, ClientError):
        return str(exc)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    name = type(exc).__name__
    return f"{name}: {text}" if text else name
