"""Timeline rows (`turnItems[]`, §8.12), keyed by `type`; unknown types keep every key."""

from typing import Any, Literal

from pydantic import Field, TypeAdapter

from .base import Timestamp, WireModel, tagged_union, validate_as
from .enums import Actor, CreationSource, InputIntent, TurnItemStatus, Visibility
from .refs import NativeRef, native_id_of

_COMMON_OPTIONAL = frozenset({"tool_surface", "tool_icon", "tool_source"})


class TurnItemBase(WireModel):
    """Fields common to every turn item type."""

    type: str
    id: str
    thread_id: str = ""
    run_id: str | None = None
    node_id: str | None = None
    provider_thread_id: str | None = None
    provider_turn_id: str | None = None
    native_item_ref: NativeRef = None
    parent_item_id: str | None = None
    ordinal: int | None = None
    title: str | None = None
    status: TurnItemStatus | str = "idle"
    started_at: Timestamp | None = None
    completed_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    tool_surface: Any = None
    tool_icon: Any = None
    tool_source: Any = None

    wire_optional = _COMMON_OPTIONAL

    @property
    def native_item_id(self) -> str | None:
        """The provider's own item id (from a `ProviderRef` or a legacy string)."""
        return native_id_of(self.native_item_ref)


class UserMessageItem(TurnItemBase):
    type: Literal["user_message"] = "user_message"
    created_by: Actor | str | None = None
    creation_source: CreationSource | str | None = None
    message_id: str | None = None
    input_intent: InputIntent | str | None = None
    text: str = ""
    attachments: list[Any] = Field(default_factory=list)


class AssistantMessageItem(TurnItemBase):
    type: Literal["assistant_message"] = "assistant_message"
    message_id: str | None = None
    text: str = ""
    attachments: list[Any] | None = None
    streaming: bool = False

    wire_optional = frozenset({"attachments"})


class ReasoningItem(TurnItemBase):
    type: Literal["reasoning"] = "reasoning"
    text: str = ""
    streaming: bool = False


class ProposedPlanItem(TurnItemBase):
    type: Literal["proposed_plan"] = "proposed_plan"
    plan_id: str | None = None
    markdown: str = ""
    streaming: bool = False


class TodoStep(WireModel):
    id: str = ""
    text: str = ""
    status: str = "pending"


class TodoListItem(TurnItemBase):
    type: Literal["todo_list"] = "todo_list"
    plan_id: str | None = None
    steps: list[TodoStep] = Field(default_factory=list)
    explanation: str | None = None

    wire_optional = frozenset({"explanation"})


class UserInputOption(WireModel):
    label: str = ""
    description: str | None = None
    value: Any = None

    wire_optional = frozenset({"value"})


class UserInputQuestion(WireModel):
    id: str
    header: str | None = None
    question: str = ""
    options: list[UserInputOption] = Field(default_factory=list)
    multi_select: bool | None = None
    allow_custom_answer: bool | None = None
    required: bool | None = None

    wire_optional = frozenset({"multi_select", "allow_custom_answer", "required"})


class UserInputRequestItem(TurnItemBase):
    type: Literal["user_input_request"] = "user_input_request"
    request_id: str | None = None
    questions: list[UserInputQuestion] = Field(default_factory=list)
    response_mode: str | None = None

    wire_optional = frozenset({"response_mode"})


class ApprovalOption(WireModel):
    decision: str = ""
    label: str = ""
    warning: str | None = None

    wire_optional = frozenset({"warning"})


class ApprovalRequestItem(TurnItemBase):
    type: Literal["approval_request"] = "approval_request"
    request_id: str | None = None
    request_kind: str | None = None
    prompt: str | None = None
    app_name: str | None = None
    options: list[ApprovalOption] | None = None

    wire_optional = frozenset({"prompt", "app_name", "options"})


class FileChangeItem(TurnItemBase):
    type: Literal["file_change"] = "file_change"
    file_name: str = ""
    additions: int | None = None
    deletions: int | None = None
    diff_str: str | None = None
    old_str: str | None = None
    new_str: str | None = None

    wire_optional = frozenset({"additions", "deletions", "diff_str", "old_str", "new_str"})


class CommandExecutionItem(TurnItemBase):
    type: Literal["command_execution"] = "command_execution"
    input: Any = None
    output: Any = None
    exit_code: int | None = None

    wire_optional = frozenset({"output", "exit_code"})


class FileSearchItem(TurnItemBase):
    type: Literal["file_search"] = "file_search"
    pattern: str | None = None
    results: list[dict[str, Any]] | None = None

    wire_optional = frozenset({"pattern", "results"})


class WebSearchItem(TurnItemBase):
    type: Literal["web_search"] = "web_search"
    patterns: list[str] | None = None
    results: list[dict[str, Any]] | None = None

    wire_optional = frozenset({"patterns", "results"})


class CheckpointItem(TurnItemBase):
    type: Literal["checkpoint"] = "checkpoint"
    checkpoint_id: str | None = None
    scope_id: str | None = None
    files: list[Any] = Field(default_factory=list)


class RunInterruptRequestItem(TurnItemBase):
    type: Literal["run_interrupt_request"] = "run_interrupt_request"
    message: str | None = None


class RunInterruptResultItem(TurnItemBase):
    type: Literal["run_interrupt_result"] = "run_interrupt_result"
    message: str | None = None


class SystemNoticeItem(TurnItemBase):
    type: Literal["system_notice"] = "system_notice"
    message: str | None = None


class Failure(WireModel):
    """`class` is one of provider_error, transport_error, permission_error, validation_error, unknown."""

    failure_class: str = Field("unknown", alias="class")
    message: str = ""
    code: str | None = None
    retryable: bool | None = False


class RetryInfo(WireModel):
    attempt: int = 0
    max_attempts: int | None = 0
    retry_delay_ms: int | None = 0


class ErrorItem(TurnItemBase):
    type: Literal["error"] = "error"
    failure: Failure = Field(default_factory=Failure)
    retry: RetryInfo | None = None

    wire_optional = frozenset({"retry"})


class CompactionItem(TurnItemBase):
    type: Literal["compaction"] = "compaction"
    driver: str | None = None
    summary: str | None = None
    before_token_count: int | None = None
    after_token_count: int | None = None

    wire_optional = frozenset({"summary", "before_token_count", "after_token_count"})


class HandoffItem(TurnItemBase):
    type: Literal["handoff"] = "handoff"
    context_handoff_id: str | None = None
    from_provider_thread_ids: list[str] = Field(default_factory=list)
    to_provider_thread_id: str | None = None
    from_provider_instance_ids: list[str] = Field(default_factory=list)
    to_provider_instance_id: str | None = None
    from_model_selections: list[Any] | None = None
    to_model: Any = None
    strategy: str | None = None
    summary: str | None = None

    wire_optional = frozenset({"from_model_selections", "to_model", "summary"})


class ForkItem(TurnItemBase):
    type: Literal["fork"] = "fork"
    source: Any = None
    target_thread_id: str | None = None
    provider_thread_id: str | None = None


class ThreadCreatedItem(TurnItemBase):
    type: Literal["thread_created"] = "thread_created"
    target_thread_id: str | None = None
    target_run_id: str | None = None
    target_provider_instance_id: str | None = None
    target_model: Any = None


class SubagentItem(TurnItemBase):
    type: Literal["subagent"] = "subagent"
    subagent_id: str | None = None
    origin: str | None = None
    driver: str | None = None
    provider_instance_id: str | None = None
    child_thread_id: str | None = None
    prompt: str = ""
    progress: Any = None
    result: Any = None

    wire_optional = frozenset({"progress"})


class DynamicToolItem(TurnItemBase):
    type: Literal["dynamic_tool"] = "dynamic_tool"
    tool_name: str | None = ""
    input: Any = None
    output: Any = None

    wire_optional = frozenset({"output"})


class UnknownTurnItem(TurnItemBase):
    """A turn item of a type this client does not know; every key is kept."""


TURN_ITEM_TYPES: dict[str, type[TurnItemBase]] = {
    cls.model_fields["type"].default: cls
    for cls in (
        UserMessageItem,
        AssistantMessageItem,
        ReasoningItem,
        ProposedPlanItem,
        TodoListItem,
        UserInputRequestItem,
        ApprovalRequestItem,
        FileChangeItem,
        CommandExecutionItem,
        FileSearchItem,
        WebSearchItem,
        CheckpointItem,
        RunInterruptRequestItem,
        RunInterruptResultItem,
        SystemNoticeItem,
        ErrorItem,
        CompactionItem,
        HandoffItem,
        ForkItem,
        ThreadCreatedItem,
        SubagentItem,
        DynamicToolItem,
    )
}

TurnItem = tagged_union("type", TURN_ITEM_TYPES, UnknownTurnItem)
"""Any turn item; dispatch is a dict lookup on `type`."""

_TURN_ITEM = TypeAdapter(TurnItem)


def decode_turn_item(obj: Any) -> TurnItemBase:
    """Decode one turn item; an unknown `type` gives `UnknownTurnItem`."""
    return validate_as("TurnItem", _TURN_ITEM.validate_python, obj)


class VisibleTurnItem(WireModel):
    """A rendered timeline row, possibly inherited by a fork; keyed by `sourceItemId`."""

    position: int = 0
    visibility: Visibility | str = "local"
    source_thread_id: str = ""
    source_item_id: str
    item: TurnItem
