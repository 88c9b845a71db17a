"""The V2 commands on runs, queued messages, checkpoints and child-thread records (§10)."""

from typing import Any, Literal

from pydantic import Field

from .base import WireModel
from .command_base import CommandBase
from .thread_commands import ThreadCommand


class ProviderFailure(WireModel):
    """`{class, message, code, retryable}`: why a run or provider failed."""

    class_: Literal[
        "provider_error", "transport_error", "permission_error", "validation_error", "unknown"
    ] | str = Field("unknown", alias="class")
    message: str
    code: str | None = None
    retryable: bool | None = None


class PreparedRunRelease(ThreadCommand):
    type: Literal["prepared-run.release"] = "prepared-run.release"
    run_id: str


class PreparedRunProgress(ThreadCommand):
    type: Literal["prepared-run.progress"] = "prepared-run.progress"
    run_id: str
    phase: Literal["worktree", "setup"] | str


class PreparedRunFail(ThreadCommand):
    type: Literal["prepared-run.fail"] = "prepared-run.fail"
    run_id: str
    failure: ProviderFailure


class QueuedMessagePromoteToSteer(ThreadCommand):
    type: Literal["queued-message.promote-to-steer"] = "queued-message.promote-to-steer"
    queued_run_id: str
    target_run_id: str


class QueuedRunReorder(ThreadCommand):
    """Move a queued run before `beforeRunId` (null: to the end)."""

    type: Literal["queued-run.reorder"] = "queued-run.reorder"
    run_id: str
    before_run_id: str | None


class QueuedRunCancel(ThreadCommand):
    type: Literal["queued-run.cancel"] = "queued-run.cancel"
    run_id: str


class QueuedRunEdit(ThreadCommand):
    """`attachments` absent keeps the message's attachments as they are."""

    type: Literal["queued-run.edit"] = "queued-run.edit"
    run_id: str
    text: str
    attachments: list[Any] | None = None

    wire_optional = frozenset({"attachments"})


class CheckpointRollback(ThreadCommand):
    type: Literal["checkpoint.rollback"] = "checkpoint.rollback"
    scope_id: str
    checkpoint_id: str


class ThreadCreatedRecord(CommandBase):
    """Records, on the parent's timeline, a thread created by the parent's run."""

    type: Literal["thread.created.record"] = "thread.created.record"
    parent_thread_id: str
    parent_run_id: str
    parent_node_id: str
    target_thread_id: str
    target_run_id: str | None


RUN_COMMANDS: tuple[type[CommandBase], ...] = (
    PreparedRunRelease, PreparedRunProgress, PreparedRunFail, QueuedMessagePromoteToSteer,
    QueuedRunReorder, QueuedRunCancel, QueuedRunEdit, CheckpointRollback, ThreadCreatedRecord,
)

__all__ = [*(cls.__name__ for cls in RUN_COMMANDS), 'ProviderFailure', 'RUN_COMMANDS']
