"""Strict models of events, the thread projection, the shell and the stream items."""

from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, StrictStr

from ..enums import ActivityRunStatus, MessageRole, RunStatus, RuntimeRequestKind, ThreadLocation
from ..events import THREAD_EVENT_TYPES as _DECODED_THREAD_EVENT_TYPES
from .artifacts import (
    Checkpoint,
    CheckpointRollbackRequest,
    ContextHandoff,
    ContextTransfer,
    PlanArtifact,
)
from .entities import (
    AppThread,
    CheckpointScope,
    ConversationMessage,
    ExecutionNode,
    ModelSelection,
    PendingBackgroundTask,
    ProviderSession,
    ProviderSessionDetached,
    ProviderThread,
    ProviderTurn,
    Run,
    RunAttempt,
    RuntimeRequest,
    Subagent,
    ThreadFields,
)
from .scalars import OMIT, NonEmpty, NonNegativeInt, PositiveInt, Slug, Strict, UtcTime
from .turn_items import ProjectedTurnItem, TurnItem

# The same list the tolerant decoder keys typed payloads by (one source for both).
THREAD_EVENT_TYPES = tuple(sorted(_DECODED_THREAD_EVENT_TYPES))


class _EventBase(Strict):
    id: NonEmpty
    thread_id: NonEmpty
    run_id: NonEmpty = OMIT
    node_id: NonEmpty = OMIT
    driver: Slug = OMIT
    provider_instance_id: Slug = OMIT
    raw_event_id: NonEmpty = OMIT
    occurred_at: UtcTime


def _event(name: str, types: Any, payload: Any) -> type[_EventBase]:
    fields = {"type": types, "payload": payload}
    return type(name, (_EventBase,), {"__annotations__": fields, "__module__": __name__})


ThreadEvent = _event("ThreadEvent", Literal[THREAD_EVENT_TYPES], AppThread)  # type: ignore[valid-type]
RunEvent = _event("RunEvent", Literal["run.created", "run.updated"], Run)
AttemptEvent = _event(
    "AttemptEvent", Literal["run-attempt.created", "run-attempt.updated"], RunAttempt
)
NodeEvent = _event("NodeEvent", Literal["node.updated"], ExecutionNode)
SubagentEvent = _event("SubagentEvent", Literal["subagent.updated"], Subagent)
SessionEvent = _event(
    "SessionEvent",
    Literal["provider-session.attached", "provider-session.updated"],
    ProviderSession,
)
DetachedEvent = _event(
    "DetachedEvent", Literal["provider-session.detached"], ProviderSessionDetached
)
ProviderThreadEvent = _event(
    "ProviderThreadEvent", Literal["provider-thread.updated"], ProviderThread
)
ProviderTurnEvent = _event("ProviderTurnEvent", Literal["provider-turn.updated"], ProviderTurn)
RequestEvent = _event("RequestEvent", Literal["runtime-request.updated"], RuntimeRequest)
MessageEvent = _event("MessageEvent", Literal["message.updated"], ConversationMessage)
TurnItemEvent = _event("TurnItemEvent", Literal["turn-item.updated"], TurnItem)
PlanEvent = _event("PlanEvent", Literal["plan.updated"], PlanArtifact)
ScopeEvent = _event("ScopeEvent", Literal["checkpoint-scope.created"], CheckpointScope)
CheckpointEvent = _event("CheckpointEvent", Literal["checkpoint.captured"], Checkpoint)
RollbackEvent = _event(
    "RollbackEvent", Literal["checkpoint.rollback-requested"], CheckpointRollbackRequest
)
HandoffEvent = _event("HandoffEvent", Literal["context-handoff.updated"], ContextHandoff)
TransferEvent = _event(
    "TransferEvent",
    Literal["context-transfer.created", "context-transfer.updated"],
    ContextTransfer,
)

DomainEvent = Annotated[
    ThreadEvent  # type: ignore[valid-type]
    | RunEvent
    | AttemptEvent
    | NodeEvent
    | SubagentEvent
    | SessionEvent
    | DetachedEvent
    | ProviderThreadEvent
    | ProviderTurnEvent
    | RequestEvent
    | MessageEvent
    | TurnItemEvent
    | PlanEvent
    | ScopeEvent
    | CheckpointEvent
    | RollbackEvent
    | HandoffEvent
    | TransferEvent,
    Field(discriminator="type"),
]


class ThreadProjection(Strict):
    thread: AppThread
    runs: list[Run]
    attempts: list[RunAttempt]
    nodes: list[ExecutionNode]
    subagents: list[Subagent]
    provider_sessions: list[ProviderSession]
    provider_threads: list[ProviderThread]
    provider_turns: list[ProviderTurn]
    runtime_requests: list[RuntimeRequest]
    messages: list[ConversationMessage]
    plans: list[PlanArtifact]
    turn_items: list[TurnItem]
    checkpoint_scopes: list[CheckpointScope]
    checkpoints: list[Checkpoint]
    context_handoffs: list[ContextHandoff]
    context_transfers: list[ContextTransfer]
    visible_turn_items: list[ProjectedTurnItem]
    updated_at: UtcTime


class PendingRequestSummary(Strict):
    id: NonEmpty
    kind: RuntimeRequestKind
    created_at: UtcTime


class LatestVisibleMessage(Strict):
    id: NonEmpty
    role: MessageRole
    text: StrictStr
    updated_at: UtcTime


class ThreadShell(ThreadFields):
    title: StrictStr
    latest_run_id: NonEmpty | None
    latest_run_requested_at: UtcTime | None = None
    latest_run_started_at: UtcTime | None = None
    latest_run_completed_at: UtcTime | None = None
    active_run_id: NonEmpty | None
    activity_run_status: ActivityRunStatus | None = None
    status: Literal["idle"] | RunStatus
    last_error: StrictStr | None = None
    pending_runtime_request: PendingRequestSummary | None
    latest_visible_message: LatestVisibleMessage | None
    latest_user_message_at: UtcTime | None
    has_actionable_proposed_plan: StrictBool
    pending_background_tasks: list[PendingBackgroundTask] = OMIT
    item_count: NonNegativeInt
    visible_item_count: NonNegativeInt
    last_visited_at: UtcTime | None = None


class ProjectShell(Strict):
    id: NonEmpty
    title: NonEmpty
    workspace_root: NonEmpty
    repository_identity: dict[str, Any] | None = None
    default_model_selection: ModelSelection | None
    default_thread_env_mode: StrictStr | None = None
    auto_pull: StrictBool = OMIT
    favicon_path: NonEmpty | None = None
    project_icon: Any = OMIT
    scripts: list[dict[str, Any]]
    pinned_at: StrictStr | None = None
    pin_order_key: NonEmpty | None = None
    archived_at: StrictStr | None = None
    created_at: StrictStr
    updated_at: StrictStr


class ShellSnapshot(Strict):
    schema_version: PositiveInt
    snapshot_sequence: NonNegativeInt
    threads: list[ThreadShell]
    archived_threads: list[ThreadShell]
    projects: list[ProjectShell]


class ArchivedShellSnapshot(Strict):
    schema_version: PositiveInt
    snapshot_sequence: NonNegativeInt
    projects: list[ProjectShell]
    threads: list[ThreadShell]


class Synchronized(Strict):
    kind: Literal["synchronized"]


class ShellSnapshotItem(Strict):
    kind: Literal["snapshot"]
    snapshot: ShellSnapshot
    resolved_repository_identity_roots: list[StrictStr] = OMIT


class ProjectUpdated(Strict):
    kind: Literal["project.updated"]
    sequence: NonNegativeInt
    project: ProjectShell


class ProjectRemoved(Strict):
    kind: Literal["project.removed"]
    sequence: NonNegativeInt
    project_id: NonEmpty


class ShellThreadUpdated(Strict):
    kind: Literal["thread.updated"]
    sequence: NonNegativeInt
    location: ThreadLocation
    thread: ThreadShell


class ShellThreadRemoved(Strict):
    kind: Literal["thread.removed"]
    sequence: NonNegativeInt
    location: ThreadLocation
    thread_id: NonEmpty


ShellStreamItem = Annotated[
    Synchronized
    | ShellSnapshotItem
    | ProjectUpdated
    | ProjectRemoved
    | ShellThreadUpdated
    | ShellThreadRemoved,
    Field(discriminator="kind"),
]


class ArchivedSnapshotItem(Strict):
    kind: Literal["snapshot"]
    snapshot: ArchivedShellSnapshot


class ArchivedThreadUpdated(Strict):
    kind: Literal["thread.updated"]
    sequence: NonNegativeInt
    thread: ThreadShell


class ArchivedThreadRemoved(Strict):
    kind: Literal["thread.removed"]
    sequence: NonNegativeInt
    thread_id: NonEmpty


ArchivedShellStreamItem = Annotated[
    ArchivedSnapshotItem | ArchivedThreadUpdated | ArchivedThreadRemoved,
    Field(discriminator="kind"),
]


class ThreadSnapshotItem(Strict):
    kind: Literal["snapshot"]
    snapshot_sequence: NonNegativeInt
    projection: ThreadProjection


class ThreadEventItem(Strict):
    kind: Literal["event"]
    sequence: NonNegativeInt
    event: DomainEvent


ThreadStreamItem = Annotated[
    Synchronized | ThreadSnapshotItem | ThreadEventItem, Field(discriminator="kind")
]


class DispatchCommandResult(Strict):
    sequence: NonNegativeInt


class ThreadLaunchResult(Strict):
    thread_id: NonEmpty
    projection: ThreadProjection
    resumed: StrictBool
