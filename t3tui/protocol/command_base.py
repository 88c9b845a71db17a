"""The base every command model shares (§10.1)."""

from .base import WireModel


class CommandBase(WireModel):
    """Every command has a `type` and a client-made unique `commandId`."""

    type: str
    command_id: str

    wire_none_is_absent = True


class UnknownCommand(CommandBase):
    """A command type this side does not know; every key is kept."""

    command_id: str | None = None  # type: ignore[assignment]
