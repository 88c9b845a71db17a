"""RPC method names (§4) and the small inputs and results of the methods t3tui uses."""

from .base import EventSequence, WireModel

SERVER_GET_CONFIG = "server.getConfig"
SUBSCRIBE_SERVER_CONFIG = "subscribeServerConfig"
SERVER_PROBE = "server.probe"
SUBSCRIBE_SHELL = "orchestration.subscribeShell"
SUBSCRIBE_THREAD = "orchestration.subscribeThread"
GET_THREAD_PROJECTION = "orchestration.getThreadProjection"
DISPATCH_COMMAND = "orchestration.dispatchCommand"
LAUNCH_THREAD = "orchestration.launchThread"
GET_ARCHIVED_SHELL_SNAPSHOT = "orchestration.getArchivedShellSnapshot"
SUBSCRIBE_ARCHIVED_SHELL = "orchestration.subscribeArchivedShell"
SEARCH_THREADS = "orchestration.searchThreads"

STREAM_METHODS = frozenset(
    {SUBSCRIBE_SHELL, SUBSCRIBE_THREAD, SUBSCRIBE_ARCHIVED_SHELL, SUBSCRIBE_SERVER_CONFIG}
)
"""Methods answered with `Chunk`s (then an `Exit`); all others are unary."""


class SubscribeShellInput(WireModel):
    """Payload of `orchestration.subscribeShell`."""

    after_sequence: EventSequence | None = None
    request_completion_marker: bool | None = None

    wire_optional = frozenset({"after_sequence", "request_completion_marker"})


class SubscribeThreadInput(WireModel):
    """Payload of `orchestration.subscribeThread`."""

    thread_id: str
    after_sequence: EventSequence | None = None
    request_completion_marker: bool | None = None
    accept_bounded_snapshot: bool | None = None
    accept_compact_turn_items: bool | None = None

    wire_optional = frozenset(
        {
            "after_sequence",
            "request_completion_marker",
            "accept_bounded_snapshot",
            "accept_compact_turn_items",
        }
    )


class GetThreadProjectionInput(WireModel):
    """Payload of `orchestration.getThreadProjection`."""

    thread_id: str


class DispatchResult(WireModel):
    """Result of `orchestration.dispatchCommand`: the sequence of the last event written."""

    sequence: EventSequence
