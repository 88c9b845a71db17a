"""The reference backend's orchestration engine.

The transport calls `Engine`: `start`, `close`, `head`, `dispatch`, `launch_thread`,
`shell_snapshot`, `shell_row`, `projection`, `events_after`, `listen`, `run_scenario`.
"""

from t3tui.backend.engine.config import EngineConfig
from t3tui.backend.engine.errors import CommandRejected, UnknownThread
from t3tui.backend.engine.ids import (
    child_thread_id_for,
    client_request_id_of,
    delegate_command_id,
    task_id_for,
)
from t3tui.backend.engine.service import Engine
from t3tui.backend.provider import ProviderInstanceConfig
from t3tui.backend.store import EventStore, StoredEvent

__all__ = [
    "CommandRejected",
    "Engine",
    "EngineConfig",
    "EventStore",
    "ProviderInstanceConfig",
    "StoredEvent",
    "UnknownThread",
    "child_thread_id_for",
    "client_request_id_of",
    "delegate_command_id",
    "task_id_for",
]
