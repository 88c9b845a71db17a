"""Strict models of the V2 command union (`OrchestrationV2Command`) and the launch input."""

from typing import Annotated, Any, Literal, Union

from pydantic import Field, StrictBool, StrictStr

from ..enums import (
    Actor,
    ApprovalDecision,
    CompletionWake,
    CreationSource,
    InteractionMode,
    RuntimeMode,
)
from .artifacts import ProviderFailure
from .entities import ModelSelection, PlanRef
from .scalars import OMIT, NonEmpty, PositiveInt, Strict, UtcTime


class _Command(Strict):
    command_id: NonEmpty


class _ThreadCommand(_Command):
    thread_id: NonEmpty


def _cmd(name: str, base: type[Strict], tag: str, **fields: Any) -> type[Strict]:
    """A command model: `fields` maps a snake_case name to `type` or `(type, default)`."""
    annotations = {"type": Literal[tag]}
    namespace: dict[str, Any] = {"__module__": __name__}
    for key, spec in fields.items():
        if isinstance(spec, tuple):
            annotations[key], namespace[key] = spec
        else:
            annotations[key] = spec
    namespace["__annotations__"] = annotations
    return type(name, (base,), namespace)


_opt = OMIT
_Created = {"created_by": Actor, "creation_source": CreationSource}
_User = Literal["user"]


class ForkPointLatest(Strict):
    type: Literal["latest_stable"]


class ForkPointRun(Strict):
    type: Literal["run"]
    run_id: NonEmpty


class ForkPointCheckpoint(Strict):
    type: Literal["checkpoint"]
    checkpoint_id: NonEmpty


ForkPoint = Annotated[
    ForkPointLatest | ForkPointRun | ForkPointCheckpoint, Field(discriminator="type")
]


class PolicyCeiling(Strict):
    caller_thread_id: NonEmpty
    runtime_mode: RuntimeMode
    interaction_mode: InteractionMode


class DelegatedCompletionRef(Strict):
    parent_run_id: NonEmpty
    generation: PositiveInt
    task_ids: list[NonEmpty]


class DeferStart(Strict):
    type: Literal["defer_start"]


class SteerActive(Strict):
    type: Literal["steer_active"]
    target_run_id: NonEmpty


class RestartActive(Strict):
    type: Literal["restart_active"]
    target_run_id: NonEmpty


class QueueAfterActive(Strict):
    type: Literal["queue_after_active"]


class StartImmediately(Strict):
    type: Literal["start_immediately"]


DispatchMode = Annotated[
    DeferStart | SteerActive | RestartActive | QueueAfterActive | StartImmediately,
    Field(discriminator="type"),
]
_T, _C = _ThreadCommand, _Command

COMMANDS: tuple[type[Strict], ...] = (
    _cmd("ThreadCreate", _T, "thread.create", **_Created, project_id=NonEmpty, title=NonEmpty,
         model_selection=ModelSelection, runtime_mode=RuntimeMode,
         interaction_mode=InteractionMode, branch=NonEmpty | None,
         worktree_path=NonEmpty | None),
    _cmd("ThreadArchive", _T, "thread.archive"),
    _cmd("ThreadUnarchive", _T, "thread.unarchive"),
    _cmd("ThreadDelete", _T, "thread.delete"),
    _cmd("ThreadSettle", _T, "thread.settle", settled_at=(UtcTime, _opt)),
    _cmd("ThreadAutoSettle", _T, "thread.auto-settle", snapshot_at=UtcTime,
         settled_at=(UtcTime, _opt)),
    _cmd("ThreadUnsettle", _T, "thread.unsettle", reason=_User),
    _cmd("ThreadSnooze", _T, "thread.snooze", snoozed_until=StrictStr),
    _cmd("ThreadUnsnooze", _T, "thread.unsnooze", reason=_User),
    _cmd("ThreadPin", _T, "thread.pin", order_key=(NonEmpty, _opt)),
    _cmd("ThreadUnpin", _T, "thread.unpin"),
    _cmd("ThreadPinReorder", _T, "thread.pin.reorder", order_key=NonEmpty),
    _cmd("ThreadVisit", _T, "thread.visit", visited_at=StrictStr),
    _cmd("ThreadMarkUnread", _T, "thread.mark-unread"),
    _cmd("ThreadMetadataUpdate", _T, "thread.metadata.update", title=(NonEmpty, _opt),
         regenerate_title=(StrictBool, _opt), branch=(NonEmpty | None, _opt),
         worktree_path=(NonEmpty | None, _opt), expected_worktree_path=(NonEmpty | None, _opt),
         linked_pull_request=(dict[str, Any] | None, _opt)),
    _cmd("ThreadTitleRegenerationComplete", _T, "thread.title.regeneration.complete",
         request_id=NonEmpty, title=(NonEmpty, _opt)),
    _cmd("ThreadRuntimeModeSet", _T, "thread.runtime-mode.set", runtime_mode=RuntimeMode),
    _cmd("ThreadInteractionModeSet", _T, "thread.interaction-mode.set",
         interaction_mode=InteractionMode),
    _cmd("ThreadModelSelectionSet", _T, "thread.model-selection.set",
         model_selection=ModelSelection),
    _cmd("ProviderSessionDetach", _T, "provider-session.detach", provider_session_id=NonEmpty,
         reason=(StrictStr, _opt)),
    _cmd("MessageDispatch", _T, "message.dispatch", **_Created, message_id=NonEmpty,
         text=StrictStr, attachments=list[dict[str, Any]], title_seed=(NonEmpty, _opt),
         model_selection=(ModelSelection, _opt), source_plan_ref=(PlanRef, _opt),
         restart_continuation_of_run_id=(NonEmpty, _opt),
         delegated_completion=(DelegatedCompletionRef, _opt), dispatch_mode=DispatchMode),
    _cmd("PreparedRunRelease", _T, "prepared-run.release", run_id=NonEmpty),
    _cmd("PreparedRunProgress", _T, "prepared-run.progress", run_id=NonEmpty,
         phase=Literal["worktree", "setup"]),
    _cmd("PreparedRunFail", _T, "prepared-run.fail", run_id=NonEmpty, failure=ProviderFailure),
    _cmd("RunInterrupt", _T, "run.interrupt", run_id=NonEmpty, reason=(StrictStr, _opt)),
    _cmd("QueuedMessagePromoteToSteer", _T, "queued-message.promote-to-steer",
         queued_run_id=NonEmpty, target_run_id=NonEmpty),
    _cmd("QueuedRunReorder", _T, "queued-run.reorder", run_id=NonEmpty,
         before_run_id=NonEmpty | None),
    _cmd("QueuedRunCancel", _T, "queued-run.cancel", run_id=NonEmpty),
    _cmd("QueuedRunEdit", _T, "queued-run.edit", run_id=NonEmpty, text=StrictStr,
         attachments=(list[dict[str, Any]], _opt)),
    _cmd("RuntimeRequestRespond", _T, "runtime-request.respond", request_id=NonEmpty,
         decision=(ApprovalDecision, _opt), answers=(dict[str, Any], _opt)),
    _cmd("CheckpointRollback", _T, "checkpoint.rollback", scope_id=NonEmpty,
         checkpoint_id=NonEmpty),
    _cmd("ThreadFork", _C, "thread.fork", **_Created, source_thread_id=NonEmpty,
         target_thread_id=NonEmpty, source_point=ForkPoint, title=(NonEmpty, _opt),
         policy_ceiling=(PolicyCeiling, _opt), created_at=(UtcTime, _opt)),
    _cmd("ThreadMergeBack", _C, "thread.merge_back", **_Created, source_thread_id=NonEmpty,
         target_thread_id=NonEmpty, source_point=ForkPoint, created_at=(UtcTime, _opt)),
    _cmd("DelegatedTaskRequest", _C, "delegated_task.request", **_Created,
         parent_thread_id=NonEmpty, parent_run_id=NonEmpty, parent_node_id=NonEmpty,
         task=NonEmpty, title=(NonEmpty, _opt), model_selection=ModelSelection,
         runtime_mode=RuntimeMode, interaction_mode=InteractionMode,
         completion_wake=(CompletionWake, _opt), created_at=(UtcTime, _opt)),
    _cmd("DelegatedTaskWakePolicy", _C, "delegated_task.wake-policy",
         parent_thread_id=NonEmpty, task_id=NonEmpty, completion_wake=CompletionWake),
    _cmd("DelegatedTaskCompletionDeliveryAcknowledge", _C,
         "delegated_task.completion-delivery.acknowledge", parent_thread_id=NonEmpty,
         task_id=NonEmpty, observed_by_run_id=NonEmpty | None),
    _cmd("DelegatedTaskCompletionDeliveryDispose", _C,
         "delegated_task.completion-delivery.dispose", parent_thread_id=NonEmpty,
         task_id=NonEmpty),
    _cmd("ThreadCreatedRecord", _C, "thread.created.record", parent_thread_id=NonEmpty,
         parent_run_id=NonEmpty, parent_node_id=NonEmpty, target_thread_id=NonEmpty,
         target_run_id=NonEmpty | None),
    _cmd("ProviderSwitch", _T, "provider.switch", model_selection=ModelSelection),
)

Command = Annotated[Union[COMMANDS], Field(discriminator="type")]  # noqa: UP007  (built from a tuple)
"""Any V2 command, discriminated by `type`; an unknown type or enum value fails."""

COMMAND_TYPES = frozenset(cls.model_fields["type"].annotation.__args__[0] for cls in COMMANDS)


class WorkspaceRoot(Strict):
    type: Literal["root"]
    branch: NonEmpty = OMIT


class WorkspaceExisting(Strict):
    type: Literal["existing_worktree"]
    worktree_path: NonEmpty
    branch: NonEmpty = OMIT


class WorkspaceWorktree(Strict):
    type: Literal["worktree"]
    base_ref: NonEmpty
    branch: NonEmpty = OMIT
    start_from_origin: StrictBool = OMIT


class InitialMessage(Strict):
    message_id: NonEmpty = OMIT
    text: StrictStr
    attachments: list[dict[str, Any]]


class LaunchThreadInput(Strict):
    command_id: NonEmpty
    creation_source: CreationSource = OMIT
    thread_id: NonEmpty = OMIT
    reuse_existing_thread: StrictBool = OMIT
    project_id: NonEmpty
    title: NonEmpty
    generate_title: StrictBool = OMIT
    model_selection: ModelSelection
    runtime_mode: RuntimeMode
    interaction_mode: InteractionMode
    workspace_strategy: Annotated[
        WorkspaceRoot | WorkspaceExisting | WorkspaceWorktree, Field(discriminator="type")
    ]
    initial_message: InitialMessage = OMIT
