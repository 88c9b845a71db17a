"""What an action came to, and the one place a command is sent and confirmed from the stream.

An action announces success only when the stream shows its effect; a command whose answer was
lost with the socket is "outcome unknown" (it may or may not have been applied).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from t3tui.actions.port import Port, Report
from t3tui.client.errors import ClientError, describe
from t3tui.client.outcome import Accepted, Rejected

Kind = Literal["ok", "refused", "not_confirmed", "unknown", "unavailable"]


@dataclass(frozen=True)
class Outcome:
    """`kind`: ok (the stream showed it) / refused (the server's words in `message`, `detail`)
    / not_confirmed (accepted, the stream did not show it in time) / unknown (no answer: it
    may have been applied; `command` names it) / unavailable (t3tui did not send anything:
    `text` says why). `text` is the one-line summary the app shows (the last `report`)."""

    kind: Kind
    text: str
    row: Any = None  # the row the stream showed (ok), or what the action acted on
    message: str | None = None
    detail: str | None = None
    command: str | None = None
    value: Any = None  # what an action adds: a check-in's verdict, a tree's steps
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.kind == "ok"

    @property
    def refusal(self) -> str:
        """The server's refusal as one line of text: its message, then its detail."""
        return self.message if not self.detail else f"{self.message} ({self.detail})"


def unavailable(why: str, report: Report, row: Any = None) -> Outcome:
    report("failed", why)
    return Outcome("unavailable", why, row=row)


async def send_and_confirm(
    port: Port,
    command: Any,
    *,
    report: Report,
    confirmed: Callable[[], Any],
    timeout: float,
    doing: str,
    done: Callable[[Any], str],
    not_done: str,
    on_accepted: Callable[[], None] | None = None,
) -> Outcome:
    """Dispatch `command`, then wait up to `timeout` s for `confirmed()` (its truthy value is
    the outcome's `row`); every phase goes to `report`. `on_accepted` runs once the server
    accepted it (before the wait)."""
    report("pending", f"{doing}…")
    kind = getattr(command, "type", type(command).__name__)
    try:
        answer = await port.dispatch(command, timeout)
    except ClientError as exc:
        reason = str(exc) or describe(exc)
        report("unknown", f"outcome unknown: {reason}")
        return Outcome("unknown", f"outcome unknown: {reason}", message=reason, command=kind)
    if isinstance(answer, Rejected):
        text = f"server refused: {answer.message}"
        if answer.detail:
            text += f" ({answer.detail})"
        report("failed", text)
        return Outcome("refused", text, message=answer.message, detail=answer.detail,
                       command=kind)
    if not isinstance(answer, Accepted):
        report("unknown", f"outcome unknown: {answer.reason}")
        return Outcome("unknown", f"outcome unknown: {answer.reason}", message=answer.reason,
                       command=kind)
    if on_accepted is not None:
        on_accepted()
    report("pending", f"{doing}… accepted, waiting for the event stream")
    value = await port.wait_until(confirmed, timeout)
    if value:
        text = done(value)
        report("ok", text)
        return Outcome("ok", text, row=value, command=kind)
    report("failed", not_done)
    return Outcome("not_confirmed", not_done, command=kind)
