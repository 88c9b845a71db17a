"""Strict models of the V2 contract's projection entities (`orchestrationV2.ts`)."""

from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, StrictStr

from ..enums import (
    Actor,
    ApprovalDecision,
    AttemptReason,
    AttemptStatus,
    CompletionDeliveryState,
    CompletionWake,
    CreationSource,
    DelegatedDisposition,
    InteractionMode,
    MessageRole,
    NativeRefStrength,
    NodeKind,
    NodeStatus,
    ProviderSessionStatus,
    ProviderThreadStatus,
    ProviderTurnStatus,
    RunStatus,
    RuntimeMode,
    RuntimeRequestKind,
    RuntimeRequestStatus,
    SubagentOrigin,
    SubagentStatus,
)
from .capabilities import ProviderCapabilities
from .scalars import OMIT, NonEmpty, NonNegativeInt, PositiveInt, Slug, Strict, UtcTime


class ProviderRef(Strict):
    driver: Slug
    native_id: NonEmpty | None
    strength: NativeRefStrength
    fingerprint: NonEmpty = OMIT
    ordinal: NonNegativeInt = OMIT


class ModelOption(Strict):
    id: NonEmpty
    value: NonEmpty | StrictBool


class ModelSelection(Strict):
    instance_id: Slug
    model: NonEmpty
    options: list[ModelOption] = OMIT


class Lineage(Strict):
    parent_thread_id: NonEmpty | None
    relationship_to_parent: Literal["fork", "subagent"] | None
    root_thread_id: NonEmpty


class ForkedFromRun(Strict):
    type: Literal["run"]
    thread_id: NonEmpty
    run_id: NonEmpty


class ForkedFromNode(Strict):
    type: Literal["node"]
    node_id: NonEmpty


class ForkedFromProviderThread(Strict):
    type: Literal["provider_thread"]
    provider_thread_id: NonEmpty
    provider_turn_id: NonEmpty = OMIT


ForkSource = Annotated[
    ForkedFromRun | ForkedFromNode | ForkedFromProviderThread, Field(discriminator="type")
]


class TitleRegeneration(Strict):
    request_id: NonEmpty
    started_at: UtcTime


class ThreadFields(Strict):
    """Fields an app thread and its shell row share."""

    created_by: Actor
    creation_source: CreationSource
    id: NonEmpty
    project_id: NonEmpty
    provider_instance_id: Slug
    model_selection: ModelSelection
    runtime_mode: RuntimeMode
    interaction_mode: InteractionMode
    branch: NonEmpty | None
    worktree_path: NonEmpty | None
    linked_pull_request: dict[str, Any] | None = None
    active_provider_thread_id: NonEmpty | None
    history_origin: Literal["native", "v1_import"] = OMIT
    lineage: Lineage
    forked_from: ForkSource | None
    created_at: UtcTime
    updated_at: UtcTime
    archived_at: UtcTime | None
    settled_override: Literal["settled", "active"] | None
    settled_at: UtcTime | None
    unsettled_at: UtcTime | None = None
    snoozed_until: UtcTime | None = None
    snoozed_at: UtcTime | None = None
    pinned_at: UtcTime | None = None
    pin_order_key: NonEmpty | None = None
    title_regeneration: TitleRegeneration | None = None
    deleted_at: UtcTime | None


class AppThread(ThreadFields):
    title: NonEmpty
    # `withDecodingDefault(null)` upstream: optional to decode; a server always sends it.
    last_visited_at: UtcTime | None


class DelegatedDelivery(Strict):
    generation: PositiveInt
    message_id: NonEmpty
    task_ids: list[NonEmpty]


class DelegatedCohort(Strict):
    disposition: DelegatedDisposition
    next_generation: PositiveInt
    settled_delivery_count: NonNegativeInt = OMIT
    delivery: DelegatedDelivery | None


class PlanRef(Strict):
    thread_id: NonEmpty
    plan_id: NonEmpty


class Run(Strict):
    id: NonEmpty
    thread_id: NonEmpty
    ordinal: PositiveInt
    provider_instance_id: Slug
    model_selection: ModelSelection
    provider_thread_id: NonEmpty | None
    user_message_id: NonEmpty
    root_node_id: NonEmpty | None
    active_attempt_id: NonEmpty | None
    status: RunStatus
    queue_position: PositiveInt | None = None
    requested_at: UtcTime
    started_at: UtcTime | None
    completed_at: UtcTime | None
    checkpoint_id: NonEmpty | None
    context_handoff_id: NonEmpty | None
    restart_continuation_of_run_id: NonEmpty = OMIT
    source_plan_ref: PlanRef = OMIT
    delegated_completion: DelegatedCohort = OMIT


class RunAttempt(Strict):
    id: NonEmpty
    run_id: NonEmpty
    attempt_ordinal: PositiveInt
    root_node_id: NonEmpty
    provider_instance_id: Slug
    provider_thread_id: NonEmpty
    provider_turn_id: NonEmpty | None
    reason: AttemptReason
    status: AttemptStatus
    started_at: UtcTime | None
    completed_at: UtcTime | None


class ExecutionNode(Strict):
    id: NonEmpty
    thread_id: NonEmpty
    run_id: NonEmpty | None
    parent_node_id: NonEmpty | None
    root_node_id: NonEmpty
    kind: NodeKind
    status: NodeStatus
    counts_for_run: StrictBool
    provider_thread_id: NonEmpty | None
    provider_turn_id: NonEmpty | None
    native_item_ref: ProviderRef | None
    runtime_request_id: NonEmpty | None
    checkpoint_scope_id: NonEmpty | None
    started_at: UtcTime | None
    completed_at: UtcTime | None


class CompletionDelivery(Strict):
    state: CompletionDeliveryState
    observed_by_run_id: NonEmpty | None


class Subagent(Strict):
    id: NonEmpty
    thread_id: NonEmpty
    run_id: NonEmpty | None
    parent_node_id: NonEmpty
    origin: SubagentOrigin
    created_by: Actor
    driver: Slug
    provider_instance_id: Slug
    provider_thread_id: NonEmpty | None
    child_thread_id: NonEmpty | None
    native_task_ref: ProviderRef | None
    prompt: StrictStr
    title: StrictStr | None
    model: StrictStr | None
    completion_wake: CompletionWake = OMIT
    completion_delivery: CompletionDelivery = OMIT
    status: SubagentStatus
    progress: StrictStr = OMIT
    result: StrictStr | None
    started_at: UtcTime | None
    completed_at: UtcTime | None
    updated_at: UtcTime


class CheckpointScope(Strict):
    id: NonEmpty
    thread_id: NonEmpty
    run_id: NonEmpty | None
    node_id: NonEmpty
    parent_scope_id: NonEmpty | None
    provider_thread_id: NonEmpty | None
    kind: Literal["root_run", "subagent", "tool", "provider_thread", "manual"]
    ordinal_within_parent: NonNegativeInt
    advances_app_run_count: StrictBool
    cwd: NonEmpty
    created_at: UtcTime


class ProviderSession(Strict):
    id: NonEmpty
    driver: Slug
    provider_instance_id: Slug
    status: ProviderSessionStatus
    cwd: NonEmpty
    model: NonEmpty | None
    capabilities: ProviderCapabilities
    created_at: UtcTime
    updated_at: UtcTime
    last_error: StrictStr | None


class ProviderSessionDetached(Strict):
    provider_session_id: NonEmpty
    detached_at: UtcTime
    reason: StrictStr = OMIT


class PendingBackgroundTask(Strict):
    task_id: NonEmpty
    description: NonEmpty = OMIT
    task_type: NonEmpty = OMIT


class ProviderThreadFork(Strict):
    provider_thread_id: NonEmpty
    provider_turn_id: NonEmpty = OMIT
    checkpoint_id: NonEmpty = OMIT


class ProviderThread(Strict):
    id: NonEmpty
    driver: Slug
    provider_instance_id: Slug
    provider_session_id: NonEmpty | None
    app_thread_id: NonEmpty | None
    owner_node_id: NonEmpty | None
    native_thread_ref: ProviderRef | None
    native_conversation_head_ref: ProviderRef | None
    status: ProviderThreadStatus
    first_run_ordinal: PositiveInt | None
    last_run_ordinal: PositiveInt | None
    handoff_ids: list[NonEmpty]
    forked_from: ProviderThreadFork | None
    pending_background_tasks: list[PendingBackgroundTask] = OMIT
    created_at: UtcTime
    updated_at: UtcTime


class ProviderTurnTokenUsage(Strict):
    used_tokens: NonNegativeInt
    max_tokens: NonNegativeInt | None = None
    input_tokens: NonNegativeInt = OMIT
    cached_input_tokens: NonNegativeInt = OMIT
    output_tokens: NonNegativeInt = OMIT
    reasoning_output_tokens: NonNegativeInt = OMIT
    updated_at: StrictStr


class _TurnUsageCommon(Strict):
    usage_scope: Literal["main_agent"]
    cached_input_tokens: NonNegativeInt = OMIT
    cache_creation_tokens: NonNegativeInt = OMIT
    reasoning_tokens: NonNegativeInt = OMIT
    has_subagents: StrictBool


class TurnUsageComplete(_TurnUsageCommon):
    usage_status: Literal["complete"]
    input_tokens: NonNegativeInt
    output_tokens: NonNegativeInt


class TurnUsagePartial(_TurnUsageCommon):
    usage_status: Literal["partial", "unavailable"]
    input_tokens: NonNegativeInt = OMIT
    output_tokens: NonNegativeInt = OMIT


TurnTokenUsage = Annotated[
    TurnUsageComplete | TurnUsagePartial, Field(discriminator="usage_status")
]


class ProviderTurn(Strict):
    id: NonEmpty
    provider_thread_id: NonEmpty
    node_id: NonEmpty
    run_attempt_id: NonEmpty | None
    native_turn_ref: ProviderRef | None
    ordinal: PositiveInt
    status: ProviderTurnStatus
    started_at: UtcTime | None
    completed_at: UtcTime | None
    token_usage: ProviderTurnTokenUsage = OMIT
    turn_token_usage: TurnTokenUsage = OMIT


class LiveResponse(Strict):
    type: Literal["live"]
    provider_session_id: NonEmpty


class MessageResponse(Strict):
    type: Literal["message"]


class NotResumableResponse(Strict):
    type: Literal["not_resumable"]
    reason: StrictStr


class RuntimeRequest(Strict):
    id: NonEmpty
    node_id: NonEmpty
    provider_turn_id: NonEmpty | None
    native_request_ref: ProviderRef | None
    kind: RuntimeRequestKind
    status: RuntimeRequestStatus
    response_capability: Annotated[
        LiveResponse | MessageResponse | NotResumableResponse, Field(discriminator="type")
    ]
    created_at: UtcTime
    resolved_at: UtcTime | None
    decision: ApprovalDecision = OMIT
    answers: dict[str, Any] = OMIT


class MessageDelegatedCompletion(Strict):
    parent_run_id: NonEmpty
    generation: PositiveInt
    task_ids: list[NonEmpty]


class ConversationMessage(Strict):
    created_by: Actor
    creation_source: CreationSource
    id: NonEmpty
    thread_id: NonEmpty
    run_id: NonEmpty | None
    node_id: NonEmpty | None
    role: MessageRole
    text: StrictStr
    attachments: list[dict[str, Any]]
    streaming: StrictBool
    created_at: UtcTime
    updated_at: UtcTime
    delegated_completion: MessageDelegatedCompletion = OMIT
