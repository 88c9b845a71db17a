"""What became of a command: accepted, rejected, or unknown (the socket died before the Exit)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from t3tui.client.errors import ConnectionLost, RpcFailure


@dataclass(frozen=True)
class Accepted:
    """The server accepted the command; its effect still has to show up on the stream."""

    sequence: int | None
    kind = "accepted"


@dataclass(frozen=True)
class Rejected:
    """The server refused; `message` and `detail` are its own words, to show verbatim."""

    message: str
    detail: str | None = None
    kind = "rejected"


@dataclass(frozen=True)
class Unknown:
    """No answer arrived: it may or may not have been applied. Retry with the same commandId."""

    reason: str
    kind = "unknown"


CommandOutcome = Accepted | Rejected | Unknown


def new_command_id() -> str:
    return str(uuid.uuid4())


def accepted(value: Any) -> Accepted:
    """Read `{"sequence": N}`; servers that answer differently still accepted the command."""
    sequence = value.get("sequence") if isinstance(value, dict) else None
    return Accepted(sequence if isinstance(sequence, int) else None)


def from_error(error: Exception) -> CommandOutcome:
    """Classify a failed dispatch call."""
    if isinstance(error, ConnectionLost):
        return Unknown(f"connection lost before the server answered ({error})")
    if isinstance(error, RpcFailure):
        if error.tag == "Interrupt":
            return Unknown("the server interrupted the request before answering")
        detail = error.error.get("detail")
        if error.tag == "EnvironmentAuthorizationError" and detail is None:
            detail = error.error.get("requiredScope")
        return Rejected(error.message, None if detail is None else str(detail))
    return Unknown(str(error))
