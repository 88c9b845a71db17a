"""Strict models of plans, checkpoints, failures and context handoffs/transfers."""

from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictStr

from ..enums import Actor, ContextTransferStatus, ContextTransferType
from .entities import ProviderRef
from .scalars import OMIT, NonEmpty, NonNegativeInt, PositiveInt, Slug, Strict, UtcTime


class PlanStep(Strict):
    id: NonEmpty
    text: NonEmpty
    status: Literal["pending", "running", "completed"]


class QuestionOption(Strict):
    label: NonEmpty
    description: NonEmpty
    value: StrictStr = OMIT


class UserInputQuestion(Strict):
    id: NonEmpty
    header: NonEmpty
    question: NonEmpty
    options: list[QuestionOption]
    multi_select: StrictBool = OMIT
    allow_custom_answer: StrictBool = OMIT
    required: StrictBool = OMIT


class _PlanBase(Strict):
    id: NonEmpty
    thread_id: NonEmpty
    run_id: NonEmpty | None
    node_id: NonEmpty
    status: Literal["draft", "active", "completed", "superseded"]
    detail_in_turn_item: Literal[True] = OMIT


class ProposedPlan(_PlanBase):
    kind: Literal["proposed_plan"]
    markdown: StrictStr


class TodoList(_PlanBase):
    kind: Literal["todo_list"]
    steps: list[PlanStep]
    explanation: StrictStr = OMIT


PlanArtifact = Annotated[ProposedPlan | TodoList, Field(discriminator="kind")]


class CheckpointFile(Strict):
    path: NonEmpty
    kind: NonEmpty
    additions: NonNegativeInt
    deletions: NonNegativeInt


class Checkpoint(Strict):
    id: NonEmpty
    thread_id: NonEmpty
    scope_id: NonEmpty
    run_id: NonEmpty | None
    node_id: NonEmpty
    parent_checkpoint_id: NonEmpty | None
    ordinal_within_scope: NonNegativeInt
    app_run_ordinal: PositiveInt | None
    ref: NonEmpty
    status: Literal["ready", "missing", "error", "stale"]
    files: list[CheckpointFile]
    captured_at: UtcTime


class CheckpointRollbackRequest(Strict):
    scope_id: NonEmpty
    checkpoint_id: NonEmpty
    requested_at: UtcTime


class ProviderFailure(Strict):
    class_: Literal[
        "provider_error", "transport_error", "permission_error", "validation_error", "unknown"
    ] = Field(alias="class")
    message: Annotated[NonEmpty, Field(max_length=4096)]
    code: Annotated[NonEmpty, Field(max_length=128)] | None
    retryable: StrictBool | None


class ProviderRetry(Strict):
    attempt: PositiveInt
    max_attempts: PositiveInt | None
    retry_delay_ms: NonNegativeInt | None


class RunOrdinals(Strict):
    from_: PositiveInt = Field(alias="from")
    to: PositiveInt


HandoffStrategy = Literal[
    "delta_since_target_last_seen",
    "fork_delta_summary",
    "full_thread_summary",
    "checkpoint_summary",
    "manual_context",
]


class ContextHandoff(Strict):
    id: NonEmpty
    transfer_id: NonEmpty | None = None
    thread_id: NonEmpty
    target_run_id: NonEmpty
    from_provider_thread_ids: list[NonEmpty]
    to_provider_thread_id: NonEmpty
    covered_run_ordinals: RunOrdinals
    strategy: HandoffStrategy
    status: Literal["pending", "ready", "failed", "superseded"]
    summary_message_id: NonEmpty | None
    summary_text: StrictStr
    detail_in_turn_item: Literal[True] = OMIT
    created_by_provider_instance_id: Slug | None
    created_at: UtcTime
    updated_at: UtcTime


class ContextSourcePoint(Strict):
    thread_id: NonEmpty
    run_id: NonEmpty = OMIT
    checkpoint_id: NonEmpty = OMIT
    turn_item_id: NonEmpty = OMIT
    provider_thread_ref: ProviderRef = OMIT
    provider_turn_ref: ProviderRef = OMIT


class NativeForkResolution(Strict):
    strategy: Literal["native_fork"]
    provider_thread_ref: ProviderRef


class HandoffResolution(Strict):
    strategy: Literal[
        "portable_context", "delta_context", "fork_delta_context", "checkpoint_context"
    ]
    context_handoff_id: NonEmpty


class ContextTransfer(Strict):
    id: NonEmpty
    type: ContextTransferType
    source_thread_id: NonEmpty
    target_thread_id: NonEmpty
    source_point: ContextSourcePoint
    base_point: ContextSourcePoint | None
    source_provider_instance_id: Slug | None
    target_provider_instance_id: Slug | None
    target_run_id: NonEmpty | None
    status: ContextTransferStatus
    resolution: Annotated[
        NativeForkResolution | HandoffResolution, Field(discriminator="strategy")
    ] | None
    created_by: Actor
    error: StrictStr | None
    created_at: UtcTime
    updated_at: UtcTime
    consumed_at: UtcTime | None
