"""Shared fixtures: the JSON examples of t3-protocol.md and the decoder for each kind."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from t3tui import protocol as p

EXAMPLES_PATH = Path(__file__).parent / "fixtures" / "doc_examples.json"

# Each example names the decoder that owns its shape on the wire.
DECODERS: dict[str, Callable[[Any], Any]] = {
    "client_message": p.decode_client_message,
    "server_message": p.decode_server_message,
    "shell_item": p.decode_shell_item,
    "thread_item": p.decode_thread_item,
    "command": p.decode_command,
    "rpc_error": p.decode_rpc_error,
    "environment": p.EnvironmentDescriptor.from_wire,
    "token": p.OAuthTokenResponse.from_wire,
    "ticket": p.WebsocketTicket.from_wire,
    "incompatible": p.ProtocolIncompatibleBody.from_wire,
    "auth_invalid": p.AuthInvalidBody.from_wire,
    "server_config": p.ServerConfig.from_wire,
    "subscribe_shell_input": p.SubscribeShellInput.from_wire,
    "subscribe_thread_input": p.SubscribeThreadInput.from_wire,
    "get_projection_input": p.GetThreadProjectionInput.from_wire,
    "dispatch_result": p.DispatchResult.from_wire,
    "launch_input": p.LaunchThreadInput.from_wire,
    "launch_result": p.LaunchThreadResult.from_wire,
}


def load_examples() -> list[dict[str, Any]]:
    """Every example, literal (`filled: false`) or with placeholders filled in."""
    return json.loads(EXAMPLES_PATH.read_text(encoding="utf-8"))


def example(name: str) -> Any:
    """The JSON of one named example (a fresh copy each call)."""
    for ex in load_examples():
        if ex["name"] == name:
            return ex["json"]
    raise KeyError(name)
