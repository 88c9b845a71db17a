"""Id generation, and the delegated-task ids derived from a command id (delegation.md §3.4)."""

from __future__ import annotations

import os
import uuid
from urllib.parse import quote, unquote

TASK_PREFIX = "node:delegated-task:"
CHILD_PREFIX = "thread:delegated-task:"


def new_id(prefix: str) -> str:
    # 48 random bits as 12 hex characters: what uuid4().hex[:12] gave, at a fifth of its
    # cost (every event gets an id; building a UUID object was ~3% of producing one)
    return f"{prefix}-{os.urandom(6).hex()}"


def encode_uri_component(text: str) -> str:
    """JavaScript's `encodeURIComponent`."""
    return quote(text, safe="-_.!~*'()")


def delegate_command_id(namespace: str, client_request_id: str | None) -> str:
    """`command:mcp:<namespace>:delegate-task:<clientRequestId or random UUID>`."""
    return f"command:mcp:{namespace}:delegate-task:{client_request_id or uuid.uuid4()}"


def task_id_for(command_id: str) -> str:
    return TASK_PREFIX + encode_uri_component(command_id)


def child_thread_id_for(command_id: str) -> str:
    return CHILD_PREFIX + encode_uri_component(command_id)


def client_request_id_of(task_id: str) -> str | None:
    """Read the `clientRequestId` back out of a task id (None when it is not one)."""
    if not task_id.startswith(TASK_PREFIX):
        return None
    command_id = unquote(task_id[len(TASK_PREFIX) :])
    _, sep, rest = command_id.partition(":delegate-task:")
    return rest if sep else None
