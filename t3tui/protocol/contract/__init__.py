"""The V2 contract's schemas as strict pydantic models, for checking what t3tui *sends*.

Decoding stays tolerant (`t3tui.protocol`); these models say what the contract requires:
every required key, exact types, no unknown enum value, no unknown key. `WireCheck` applies
them to a recorded websocket conversation (see `check.py`); `violations(schema, obj)` to one
value. Source: `packages/contracts/src/orchestrationV2.ts` @ 006bb815 (protocol doc §15).
"""

from . import artifacts, capabilities, commands, entities, rpc, streams, turn_items
from .check import WireCheck, violations
from .commands import COMMAND_TYPES, Command, LaunchThreadInput
from .streams import (
    DomainEvent,
    ShellStreamItem,
    ThreadProjection,
    ThreadShell,
    ThreadStreamItem,
)
from .turn_items import TurnItem

__all__ = [
    "COMMAND_TYPES",
    "Command",
    "DomainEvent",
    "LaunchThreadInput",
    "ShellStreamItem",
    "ThreadProjection",
    "ThreadShell",
    "ThreadStreamItem",
    "TurnItem",
    "WireCheck",
    "artifacts",
    "capabilities",
    "commands",
    "entities",
    "rpc",
    "streams",
    "turn_items",
    "violations",
]
