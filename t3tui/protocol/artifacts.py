"""Context transfers and the entities t3tui only carries along (§8.13, §8.14)."""

from typing import Any, Literal

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


class PlanStep(WireModel):
    """One step of a todo list plan."""

    id: str = ""
    text: str = ""
    status: Literal["pending", "running", "completed"] | str | None = None


class PlanArtifact(WireModel):
    """`plans[]`: a proposed plan (`markdown`) or a todo list (`steps`), told apart by `kind`."""

    id: str
    thread_id: str = ""
    run_id: str | None = None
    node_id: str | None = None
    kind: Literal["proposed_plan", "todo_list"] | str | None = None
    type: str | None = None
    status: str | None = None
    markdown: str | None = None
    steps: list[PlanStep] | None = None
    explanation: str | None = None
    detail_in_turn_item: bool | None = None

    wire_optional = frozenset(
        {"kind", "type", "markdown", "steps", "explanation", "detail_in_turn_item"}
    )


class CheckpointScope(WireModel):
    id: str
    thread_id: str = ""
    run_id: str | None = None
    node_id: str | None = None
    parent_scope_id: str | None = None
    provider_thread_id: str | None = None
    kind: str | None = None
    ordinal_within_parent: int | None = None
    advances_app_run_count: bool | None = None
    cwd: str | None = None
    created_at: Timestamp | None = None

    wire_optional = frozenset(
        {"thread_id", "run_id", "node_id", "parent_scope_id", "provider_thread_id",
         "ordinal_within_parent", "advances_app_run_count", "cwd", "created_at"}
    )


class CheckpointFile(WireModel):
    path: str = ""
    kind: str | None = None
    additions: int | None = None
    deletions: int | None = None


class Checkpoint(WireModel):
    id: str
    thread_id: str = ""
    scope_id: str | None = None
    run_id: str | None = None
    node_id: str | None = None
    parent_checkpoint_id: str | None = None
    ordinal_within_scope: int | None = None
    app_run_ordinal: int | None = None
    ref: str | None = None
    status: str | None = None
    files: list[CheckpointFile] = Field(default_factory=list)
    captured_at: Timestamp | None = None

    wire_optional = frozenset(
        {"thread_id", "scope_id", "run_id", "node_id", "parent_checkpoint_id",
         "ordinal_within_scope", "app_run_ordinal", "ref", "captured_at"}
    )


class RunOrdinals(WireModel):
    """The app run ordinals a handoff summary covers (`from` .. `to`)."""

    from_: int | None = Field(None, alias="from")
    to: int | None = None


class ContextHandoff(WireModel):
    id: str
    transfer_id: str | None = None
    thread_id: str = ""
    target_run_id: str | None = None
    from_provider_thread_ids: list[str] = Field(default_factory=list)
    to_provider_thread_id: str | None = None
    covered_run_ordinals: RunOrdinals | None = None
    strategy: str | None = None
    status: str | None = None
    summary_message_id: str | None = None
    summary_text: str | None = None
    detail_in_turn_item: bool | None = None
    created_by_provider_instance_id: str | None = None
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None

    wire_optional = frozenset(
        {"transfer_id", "thread_id", "target_run_id", "from_provider_thread_ids",
         "to_provider_thread_id", "covered_run_ordinals", "summary_message_id", "summary_text",
         "detail_in_turn_item", "created_by_provider_instance_id", "created_at", "updated_at"}
    )


class CheckpointRollbackRequested(WireModel):
    """Payload of `checkpoint.rollback-requested` (informational)."""

    scope_id: str = ""
    checkpoint_id: str = ""
    requested_at: Timestamp | None = None
