"""Commands sent with `orchestration.dispatchCommand` (§10) and `launchThread` input (§4.6)."""

from typing import Any, Literal

from pydantic import Field

from .base import ProtocolError, Timestamp, WireModel, tagged_union, type_name
from .command_base import CommandBase, UnknownCommand
from .common import ModelSelection, SourcePlanRef
from .enums import (
    Actor,
    ApprovalDecision,
    CompletionWake,
    CreationSource,
    InteractionMode,
    RuntimeMode,
)
from .projection import ThreadProjection
from .run_commands import RUN_COMMANDS
from .thread_commands import THREAD_COMMANDS


class ThreadSettle(CommandBase):
    type: Literal["thread.settle"] = "thread.settle"
    thread_id: str
    settled_at: Timestamp | None = None

    wire_optional = frozenset({"settled_at"})


class ThreadUnsettle(CommandBase):
    """Only `reason: "user"` is accepted from clients."""

    type: Literal["thread.unsettle"] = "thread.unsettle"
    thread_id: str
    reason: str = "user"


class StartImmediately(WireModel):
    type: Literal["start_immediately"] = "start_immediately"


class QueueAfterActive(WireModel):
    type: Literal["queue_after_active"] = "queue_after_active"


class SteerActive(WireModel):
    type: Literal["steer_active"] = "steer_active"
    target_run_id: str


class RestartActive(WireModel):
    type: Literal["restart_active"] = "restart_active"
    target_run_id: str


class DeferStart(WireModel):
    type: Literal["defer_start"] = "defer_start"


class UnknownDispatchMode(WireModel):
    type: str


DispatchMode = tagged_union(
    "type",
    {
        "start_immediately": StartImmediately,
        "queue_after_active": QueueAfterActive,
        "steer_active": SteerActive,
        "restart_active": RestartActive,
        "defer_start": DeferStart,
    },
    UnknownDispatchMode,
)


class MessageDispatch(CommandBase):
    """Send a message (check-ins, replies). t3tui sends `createdBy: user`, `creationSource: web`."""

    type: Literal["message.dispatch"] = "message.dispatch"
    created_by: Actor | str = "user"
    creation_source: CreationSource | str = "web"
    thread_id: str
    message_id: str
    text: str
    attachments: list[Any] = Field(default_factory=list)
    dispatch_mode: DispatchMode
    title_seed: str | None = None
    model_selection: ModelSelection | None = None
    source_plan_ref: SourcePlanRef | None = None
    restart_continuation_of_run_id: str | None = None
    delegated_completion: dict[str, Any] | None = None

    wire_optional = frozenset(
        {
            "title_seed",
            "model_selection",
            "source_plan_ref",
            "restart_continuation_of_run_id",
            "delegated_completion",
        }
    )


class RunInterrupt(CommandBase):
    type: Literal["run.interrupt"] = "run.interrupt"
    thread_id: str
    run_id: str
    reason: str | None = None

    wire_optional = frozenset({"reason"})


class RuntimeRequestRespond(CommandBase):
    """Approve (`decision`) or answer (`answers`) a runtime request."""

    type: Literal["runtime-request.respond"] = "runtime-request.respond"
    thread_id: str
    request_id: str
    decision: ApprovalDecision | str | None = None
    answers: dict[str, Any] | None = None

    wire_optional = frozenset({"decision", "answers"})


class DelegatedTaskRequest(CommandBase):
    """Sent by the MCP `delegate_task` tool; not for UI clients."""

    type: Literal["delegated_task.request"] = "delegated_task.request"
    created_by: Actor | str = "agent"
    creation_source: CreationSource | str = "mcp"
    parent_thread_id: str
    parent_run_id: str
    parent_node_id: str
    task: str
    title: str | None = None
    model_selection: ModelSelection
    runtime_mode: RuntimeMode | str = "full-access"
    interaction_mode: InteractionMode | str = "default"
    completion_wake: CompletionWake | str | None = None
    created_at: Timestamp | None = None

    wire_optional = frozenset({"title", "completion_wake", "created_at"})


class DelegatedTaskWakePolicy(CommandBase):
    type: Literal["delegated_task.wake-policy"] = "delegated_task.wake-policy"
    parent_thread_id: str
    task_id: str
    completion_wake: CompletionWake | str


class DelegatedTaskCompletionDeliveryAcknowledge(CommandBase):
    type: Literal["delegated_task.completion-delivery.acknowledge"] = (
        "delegated_task.completion-delivery.acknowledge"
    )
    parent_thread_id: str
    task_id: str
    observed_by_run_id: str | None


class DelegatedTaskCompletionDeliveryDispose(CommandBase):
    """"Do not wake the parent for this task"."""

    type: Literal["delegated_task.completion-delivery.dispose"] = (
        "delegated_task.completion-delivery.dispose"
    )
    parent_thread_id: str
    task_id: str


class ThreadCreate(CommandBase):
    type: Literal["thread.create"] = "thread.create"
    created_by: Actor | str = "user"
    creation_source: CreationSource | str = "web"
    thread_id: str
    project_id: str
    title: str
    model_selection: ModelSelection
    runtime_mode: RuntimeMode | str = "full-access"
    interaction_mode: InteractionMode | str = "default"
    branch: str | None = None
    worktree_path: str | None = None


class ProviderSessionDetach(CommandBase):
    type: Literal["provider-session.detach"] = "provider-session.detach"
    thread_id: str
    provider_session_id: str
    reason: str | None = None

    wire_optional = frozenset({"reason"})


Command = (
    ThreadSettle
    | ThreadUnsettle
    | MessageDispatch
    | RunInterrupt
    | RuntimeRequestRespond
    | DelegatedTaskRequest
    | DelegatedTaskWakePolicy
    | DelegatedTaskCompletionDeliveryAcknowledge
    | DelegatedTaskCompletionDeliveryDispose
    | ThreadCreate
    | ProviderSessionDetach
    | CommandBase  # the typed commands of `thread_commands` and `run_commands`
)

COMMAND_TYPES: dict[str, type[CommandBase]] = {
    cls.model_fields["type"].default: cls
    for cls in (
        ThreadSettle,
        ThreadUnsettle,
        MessageDispatch,
        RunInterrupt,
        RuntimeRequestRespond,
        DelegatedTaskRequest,
        DelegatedTaskWakePolicy,
        DelegatedTaskCompletionDeliveryAcknowledge,
        DelegatedTaskCompletionDeliveryDispose,
        ThreadCreate,
        ProviderSessionDetach,
        *THREAD_COMMANDS,
        *RUN_COMMANDS,
    )
}
"""Every command type of the V2 union, by `type` (39 in the V2 contract)."""


def decode_command(obj: Any) -> Command | UnknownCommand:
    """Decode a dispatch payload; an unknown `type` gives `UnknownCommand`."""
    if not isinstance(obj, dict):
        raise ProtocolError(f"command must be a JSON object, got {type_name(obj)}")
    ctype = obj.get("type")
    if not isinstance(ctype, str):
        raise ProtocolError("command has no string 'type'")
    return COMMAND_TYPES.get(ctype, UnknownCommand).from_wire(obj)


class WorkspaceRoot(WireModel):
    wire_none_is_absent = True
    type: Literal["root"] = "root"
    branch: str | None = None

    wire_optional = frozenset({"branch"})


class WorkspaceExistingWorktree(WireModel):
    wire_none_is_absent = True
    type: Literal["existing_worktree"] = "existing_worktree"
    worktree_path: str
    branch: str | None = None

    wire_optional = frozenset({"branch"})


class WorkspaceNewWorktree(WireModel):
    wire_none_is_absent = True
    type: Literal["worktree"] = "worktree"
    base_ref: str
    branch: str | None = None
    start_from_origin: bool | None = None

    wire_optional = frozenset({"branch", "start_from_origin"})


class UnknownWorkspaceStrategy(WireModel):
    type: str


WorkspaceStrategy = tagged_union(
    "type",
    {
        "root": WorkspaceRoot,
        "existing_worktree": WorkspaceExistingWorktree,
        "worktree": WorkspaceNewWorktree,
    },
    UnknownWorkspaceStrategy,
)


class InitialMessage(WireModel):
    wire_none_is_absent = True
    text: str
    attachments: list[Any] = Field(default_factory=list)
    message_id: str | None = None

    wire_optional = frozenset({"message_id"})


class LaunchThreadInput(WireModel):
    """Payload of `orchestration.launchThread`."""

    wire_none_is_absent = True

    command_id: str
    creation_source: CreationSource | str = "web"
    project_id: str
    title: str
    model_selection: ModelSelection
    runtime_mode: RuntimeMode | str = "full-access"
    interaction_mode: InteractionMode | str = "default"
    workspace_strategy: WorkspaceStrategy = Field(default_factory=WorkspaceRoot)
    initial_message: InitialMessage | None = None
    thread_id: str | None = None
    reuse_existing_thread: bool | None = None
    generate_title: bool | None = None

    wire_optional = frozenset(
        {"initial_message", "thread_id", "reuse_existing_thread", "generate_title"}
    )


class LaunchThreadResult(WireModel):
    """Result of `orchestration.launchThread`."""

    thread_id: str
    projection: ThreadProjection
    resumed: bool = False
