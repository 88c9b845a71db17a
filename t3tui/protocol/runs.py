"""Runs, attempts, execution nodes and subagent rows (§8.3 to §8.6)."""

from typing import Any

from pydantic import Field

from .base import Timestamp, WireModel
from .common import ModelSelection, SourcePlanRef
from .enums import (
    ACTIVE_RUN_STATUSES,
    TERMINAL_RUN_STATUSES,
    Actor,
    AttemptReason,
    AttemptStatus,
    CompletionDeliveryState,
    CompletionWake,
    DelegatedDisposition,
    NodeKind,
    NodeStatus,
    RunStatus,
    SubagentOrigin,
    SubagentStatus,
)
from .refs import NativeRef, native_id_of


class DelegatedDelivery(WireModel):
    """The wake message currently delivering child results to the parent run."""

    generation: int = 0
    message_id: str | None = None
    task_ids: list[str] = Field(default_factory=list)


class DelegatedCompletion(WireModel):
    """The parent-run wake cohort."""

    disposition: DelegatedDisposition | str = "open"
    next_generation: int = 0
    settled_delivery_count: int | None = None
    delivery: DelegatedDelivery | None = None

    wire_optional = frozenset({"settled_delivery_count"})


class Run(WireModel):
    """One run of a thread (`runs[]`, payload of `run.created` / `run.updated`)."""

    id: str
    thread_id: str = ""
    ordinal: int = 0
    provider_instance_id: str = ""
    model_selection: ModelSelection | None = None
    provider_thread_id: str | None = None
    user_message_id: str | None = None
    root_node_id: str | None = None
    active_attempt_id: str | None = None
    status: RunStatus | str
    queue_position: int | None = None
    requested_at: Timestamp | None = None
    started_at: Timestamp | None = None
    completed_at: Timestamp | None = None
    checkpoint_id: str | None = None
    context_handoff_id: str | None = None
    restart_continuation_of_run_id: str | None = None
    source_plan_ref: SourcePlanRef | None = None
    delegated_completion: DelegatedCompletion | None = None

    wire_optional = frozenset(
        {
            "queue_position",
            "restart_continuation_of_run_id",
            "source_plan_ref",
            "delegated_completion",
        }
    )

    @property
    def active(self) -> bool:
        """preparing, queued, starting, running or waiting."""
        return self.status in ACTIVE_RUN_STATUSES

    @property
    def terminal(self) -> bool:
        """completed, interrupted, failed, cancelled or rolled_back."""
        return self.status in TERMINAL_RUN_STATUSES


class RunAttempt(WireModel):
    """One provider attempt of a run (`attempts[]`)."""

    id: str
    run_id: str = ""
    attempt_ordinal: int = 0
    root_node_id: str | None = None
    provider_instance_id: str = ""
    provider_thread_id: str | None = None
    provider_turn_id: str | None = None
    reason: AttemptReason | str | None = None
    status: AttemptStatus | str
    started_at: Timestamp | None = None
    completed_at: Timestamp | None = None


class ExecutionNode(WireModel):
    """A node of a run's execution tree (`nodes[]`)."""

    id: str
    thread_id: str = ""
    run_id: str | None = None
    parent_node_id: str | None = None
    root_node_id: str | None = None
    kind: NodeKind | str | None = None
    status: NodeStatus | str
    counts_for_run: bool | None = None
    provider_thread_id: str | None = None
    provider_turn_id: str | None = None
    native_item_ref: NativeRef = None
    runtime_request_id: str | None = None
    checkpoint_scope_id: str | None = None
    started_at: Timestamp | None = None
    completed_at: Timestamp | None = None


class CompletionDelivery(WireModel):
    """How a finished child's result reaches its parent."""

    state: CompletionDeliveryState | str = "pending"
    observed_by_run_id: str | None = None


class Subagent(WireModel):
    """A child task row on the parent projection; for app-owned delegation `id` is the taskId."""

    id: str
    thread_id: str = ""
    run_id: str | None = None
    parent_node_id: str | None = None
    origin: SubagentOrigin | str | None = None
    created_by: Actor | str | None = None
    driver: str | None = None
    provider_instance_id: str | None = None
    provider_thread_id: str | None = None
    child_thread_id: str | None = None
    native_task_ref: NativeRef = None
    prompt: str = ""
    title: str | None = None
    model: str | None = None
    completion_wake: CompletionWake | str | None = None
    completion_delivery: CompletionDelivery | None = None
    status: SubagentStatus | str
    progress: Any = None
    result: Any = None
    started_at: Timestamp | None = None
    completed_at: Timestamp | None = None
    updated_at: Timestamp | None = None

    wire_optional = frozenset({"completion_wake", "completion_delivery", "progress"})

    @property
    def native_task_id(self) -> str | None:
        """The provider's own task id (from a `ProviderRef` or a legacy string)."""
        return native_id_of(self.native_task_ref)

    @property
    def effective_completion_wake(self) -> str:
        """An absent `completionWake` is treated as `settled_only`."""
        return self.completion_wake or "settled_only"
