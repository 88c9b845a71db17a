"""Context transfers and the entities t3tui only carries along (§8.13, §8.14)."""

from typing import Any

from pydantic import Field

from .base import Timestamp, WireModel
from .enums import ContextTransferStatus, ContextTransferType
from .refs import NativeRef


class SourcePoint(WireModel):
    """Where a context transfer starts."""

    thread_id: str = ""
    run_id: str | None = None
    checkpoint_id: str | None = None
    turn_item_id: str | None = None
    provider_thread_ref: NativeRef = None
    provider_turn_ref: NativeRef = None

    wire_optional = frozenset(
        {"run_id", "checkpoint_id", "turn_item_id", "provider_thread_ref", "provider_turn_ref"}
    )


class ContextTransfer(WireModel):
    """`subagent_spawn` (parent to child) and `subagent_result` (child to parent) mark delegation."""

    id: str
    type: ContextTransferType | str | None = None
    status: ContextTransferStatus | str | None = None
    source_thread_id: str | None = None
    target_thread_id: str | None = None
    source_point: SourcePoint | None = None
    base_point: Any = None
    source_provider_instance_id: str | None = None
    target_provider_instance_id: str | None = None
    target_run_id: str | None = None
    resolution: Any = None
    created_by: str | None = None
    error: Any = None
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    consumed_at: Timestamp | None = None


class PlanArtifact(WireModel):
    """`plans[]`: a proposed plan (`markdown`) or a todo list (`steps`)."""

    id: str
    thread_id: str = ""
    run_id: str | None = None
    node_id: str | None = None
    type: str | None = None
    status: str | None = None

    wire_optional = frozenset({"type"})


class CheckpointScope(WireModel):
    id: str
    kind: str | None = None


class CheckpointFile(WireModel):
    path: str = ""
    kind: str | None = None
    additions: int | None = None
    deletions: int | None = None


class Checkpoint(WireModel):
    id: str
    status: str | None = None
    files: list[CheckpointFile] = Field(default_factory=list)


class ContextHandoff(WireModel):
    id: str
    strategy: str | None = None
    status: str | None = None


class CheckpointRollbackRequested(WireModel):
    """Payload of `checkpoint.rollback-requested` (informational)."""

    scope_id: str = ""
    checkpoint_id: str = ""
    requested_at: Timestamp | None = None
