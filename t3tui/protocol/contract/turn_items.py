"""Strict models of the V2 contract's turn items (`OrchestrationV2TurnItem`, 22 types)."""

from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, StrictInt, StrictStr

from ..enums import (
    Actor,
    ApprovalDecision,
    CreationSource,
    InputIntent,
    ProviderRequestKind,
    TurnItemStatus,
    Visibility,
)
from .artifacts import (
    CheckpointFile,
    HandoffStrategy,
    PlanStep,
    ProviderFailure,
    ProviderRetry,
    UserInputQuestion,
)
from .entities import ForkSource, ModelSelection, ProviderRef
from .scalars import OMIT, NonEmpty, NonNegativeInt, PositiveInt, Slug, Strict, UtcTime


class TurnItemBase(Strict):
    tool_surface: Literal["browser", "computer"] = OMIT
    tool_icon: Any = OMIT
    tool_source: Any = OMIT
    id: NonEmpty
    thread_id: NonEmpty
    run_id: NonEmpty | None
    node_id: NonEmpty | None
    provider_thread_id: NonEmpty | None
    provider_turn_id: NonEmpty | None
    native_item_ref: ProviderRef | None
    parent_item_id: NonEmpty | None
    ordinal: NonNegativeInt
    status: TurnItemStatus
    title: StrictStr | None
    started_at: UtcTime | None
    completed_at: UtcTime | None
    updated_at: UtcTime


class UserMessage(TurnItemBase):
    created_by: Actor
    creation_source: CreationSource
    type: Literal["user_message"]
    message_id: NonEmpty
    input_intent: InputIntent
    text: StrictStr
    attachments: list[dict[str, Any]]


class AssistantMessage(TurnItemBase):
    type: Literal["assistant_message"]
    message_id: NonEmpty
    text: StrictStr
    attachments: list[dict[str, Any]] = OMIT
    streaming: StrictBool


class Reasoning(TurnItemBase):
    type: Literal["reasoning"]
    text: StrictStr
    streaming: StrictBool


class ProposedPlan(TurnItemBase):
    type: Literal["proposed_plan"]
    plan_id: NonEmpty
    markdown: StrictStr
    streaming: StrictBool


class TodoList(TurnItemBase):
    type: Literal["todo_list"]
    plan_id: NonEmpty
    steps: list[PlanStep]
    explanation: StrictStr = OMIT


class UserInputRequest(TurnItemBase):
    type: Literal["user_input_request"]
    request_id: NonEmpty
    questions: list[UserInputQuestion]
    response_mode: Literal["message"] = OMIT


class FileChange(TurnItemBase):
    type: Literal["file_change"]
    file_name: NonEmpty
    additions: NonNegativeInt = OMIT
    deletions: NonNegativeInt = OMIT
    diff_str: StrictStr = OMIT
    old_str: StrictStr = OMIT
    new_str: StrictStr = OMIT


class CommandExecution(TurnItemBase):
    type: Literal["command_execution"]
    input: StrictStr
    output: StrictStr = OMIT
    exit_code: StrictInt = OMIT


class FileSearchResult(Strict):
    file_name: NonEmpty
    line: PositiveInt = OMIT
    column: PositiveInt = OMIT
    preview: StrictStr = OMIT


class FileSearch(TurnItemBase):
    type: Literal["file_search"]
    pattern: StrictStr = OMIT
    results: list[FileSearchResult] = OMIT


class WebSearchResult(Strict):
    title: StrictStr = OMIT
    url: NonEmpty = OMIT
    snippet: StrictStr = OMIT


class WebSearch(TurnItemBase):
    type: Literal["web_search"]
    patterns: list[StrictStr] = OMIT
    results: list[WebSearchResult] = OMIT


class ApprovalOption(Strict):
    decision: ApprovalDecision
    label: NonEmpty
    warning: NonEmpty = OMIT


class ApprovalRequest(TurnItemBase):
    type: Literal["approval_request"]
    request_id: NonEmpty
    request_kind: ProviderRequestKind
    prompt: StrictStr = OMIT
    app_name: StrictStr = OMIT
    options: list[ApprovalOption] = OMIT


class CheckpointItem(TurnItemBase):
    type: Literal["checkpoint"]
    checkpoint_id: NonEmpty
    scope_id: NonEmpty
    files: list[CheckpointFile]


class RunInterruptRequest(TurnItemBase):
    type: Literal["run_interrupt_request"]
    message: StrictStr


class RunInterruptResult(TurnItemBase):
    type: Literal["run_interrupt_result"]
    message: StrictStr


class SystemNotice(TurnItemBase):
    type: Literal["system_notice"]
    message: StrictStr


class ErrorItem(TurnItemBase):
    type: Literal["error"]
    failure: ProviderFailure
    retry: ProviderRetry = OMIT


class Compaction(TurnItemBase):
    type: Literal["compaction"]
    driver: Slug | None
    summary: StrictStr = OMIT
    before_token_count: NonNegativeInt = OMIT
    after_token_count: NonNegativeInt = OMIT


class Handoff(TurnItemBase):
    type: Literal["handoff"]
    context_handoff_id: NonEmpty
    from_provider_thread_ids: list[NonEmpty]
    to_provider_thread_id: NonEmpty
    from_provider_instance_ids: list[Slug]
    to_provider_instance_id: Slug
    from_model_selections: list[ModelSelection] = OMIT
    to_model: StrictStr = OMIT
    strategy: HandoffStrategy
    summary: StrictStr = OMIT


class Fork(TurnItemBase):
    type: Literal["fork"]
    source: ForkSource
    target_thread_id: NonEmpty
    # Overrides the base's required nullable key: here it is optional and never null.
    provider_thread_id: NonEmpty = OMIT  # type: ignore[assignment]


class ThreadCreated(TurnItemBase):
    type: Literal["thread_created"]
    target_thread_id: NonEmpty
    target_run_id: NonEmpty | None
    target_provider_instance_id: Slug
    target_model: NonEmpty


class SubagentItem(TurnItemBase):
    type: Literal["subagent"]
    subagent_id: NonEmpty
    origin: Literal["provider_native", "app_owned"]
    driver: Slug
    provider_instance_id: Slug
    child_thread_id: NonEmpty | None
    prompt: StrictStr
    progress: StrictStr = OMIT
    result: StrictStr | None


class DynamicTool(TurnItemBase):
    type: Literal["dynamic_tool"]
    tool_name: NonEmpty | None
    input: Any
    output: Any = OMIT


TurnItem = Annotated[
    UserMessage
    | AssistantMessage
    | Reasoning
    | ProposedPlan
    | TodoList
    | UserInputRequest
    | FileChange
    | CommandExecution
    | FileSearch
    | WebSearch
    | ApprovalRequest
    | CheckpointItem
    | RunInterruptRequest
    | RunInterruptResult
    | SystemNotice
    | ErrorItem
    | Compaction
    | Handoff
    | Fork
    | ThreadCreated
    | SubagentItem
    | DynamicTool,
    Field(discriminator="type"),
]


class ProjectedTurnItem(Strict):
    position: NonNegativeInt
    visibility: Visibility
    source_thread_id: NonEmpty
    source_item_id: NonEmpty
    item: TurnItem
