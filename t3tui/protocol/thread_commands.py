"""The V2 commands on one thread's lifecycle, modes and placement (§10), typed.

t3tui sends few of these itself; they are typed so a decoder (the reference backend, a
recorder, a test) reads any command of the V2 union as a model, and so a command built in
code is checked before it is sent (no unknown enum value, see `WireModel`).
"""

from typing import Any, Literal

from pydantic import Field

from .base import Timestamp, WireModel, tagged_union
from .command_base import CommandBase
from .common import ModelSelection
from .enums import Actor, CreationSource, InteractionMode, RuntimeMode


class ThreadCommand(CommandBase):
    thread_id: str


class ThreadArchive(ThreadCommand):
    type: Literal["thread.archive"] = "thread.archive"


class ThreadUnarchive(ThreadCommand):
    type: Literal["thread.unarchive"] = "thread.unarchive"


class ThreadDelete(ThreadCommand):
    type: Literal["thread.delete"] = "thread.delete"


class ThreadAutoSettle(ThreadCommand):
    """Server-internal (the settlement sweep); clients never send it."""

    type: Literal["thread.auto-settle"] = "thread.auto-settle"
    snapshot_at: Timestamp
    settled_at: Timestamp | None = None

    wire_optional = frozenset({"settled_at"})


class ThreadSnooze(ThreadCommand):
    type: Literal["thread.snooze"] = "thread.snooze"
    snoozed_until: str


class ThreadUnsnooze(ThreadCommand):
    type: Literal["thread.unsnooze"] = "thread.unsnooze"
    reason: Literal["user"] | str = "user"


class ThreadPin(ThreadCommand):
    type: Literal["thread.pin"] = "thread.pin"
    order_key: str | None = None

    wire_optional = frozenset({"order_key"})


class ThreadUnpin(ThreadCommand):
    type: Literal["thread.unpin"] = "thread.unpin"


class ThreadPinReorder(ThreadCommand):
    type: Literal["thread.pin.reorder"] = "thread.pin.reorder"
    order_key: str


class ThreadVisit(ThreadCommand):
    type: Literal["thread.visit"] = "thread.visit"
    visited_at: str


class ThreadMarkUnread(ThreadCommand):
    type: Literal["thread.mark-unread"] = "thread.mark-unread"


class ThreadMetadataUpdate(ThreadCommand):
    """Absent keys leave the field unchanged; `null` clears branch/worktree/pull request."""

    type: Literal["thread.metadata.update"] = "thread.metadata.update"
    title: str | None = None
    regenerate_title: bool | None = None
    branch: str | None = None
    worktree_path: str | None = None
    expected_worktree_path: str | None = None
    linked_pull_request: dict[str, Any] | None = None

    wire_optional = frozenset(
        {"title", "regenerate_title", "branch", "worktree_path", "expected_worktree_path",
         "linked_pull_request"}
    )
    wire_nullable = frozenset(
        {"branch", "worktree_path", "expected_worktree_path", "linked_pull_request"}
    )


class ThreadTitleRegenerationComplete(ThreadCommand):
    type: Literal["thread.title.regeneration.complete"] = "thread.title.regeneration.complete"
    request_id: str
    title: str | None = None

    wire_optional = frozenset({"title"})


class ThreadRuntimeModeSet(ThreadCommand):
    type: Literal["thread.runtime-mode.set"] = "thread.runtime-mode.set"
    runtime_mode: RuntimeMode | str


class ThreadInteractionModeSet(ThreadCommand):
    type: Literal["thread.interaction-mode.set"] = "thread.interaction-mode.set"
    interaction_mode: InteractionMode | str


class ThreadModelSelectionSet(ThreadCommand):
    type: Literal["thread.model-selection.set"] = "thread.model-selection.set"
    model_selection: ModelSelection


class ProviderSwitch(ThreadCommand):
    type: Literal["provider.switch"] = "provider.switch"
    model_selection: ModelSelection


class ForkPointLatestStable(WireModel):
    type: Literal["latest_stable"] = "latest_stable"


class ForkPointRun(WireModel):
    type: Literal["run"] = "run"
    run_id: str


class ForkPointCheckpoint(WireModel):
    type: Literal["checkpoint"] = "checkpoint"
    checkpoint_id: str


class UnknownForkPoint(WireModel):
    type: str


ForkPoint = tagged_union(
    "type",
    {"latest_stable": ForkPointLatestStable, "run": ForkPointRun,
     "checkpoint": ForkPointCheckpoint},
    UnknownForkPoint,
)


class PolicyCeiling(WireModel):
    caller_thread_id: str
    runtime_mode: RuntimeMode | str
    interaction_mode: InteractionMode | str


class ThreadFork(CommandBase):
    type: Literal["thread.fork"] = "thread.fork"
    created_by: Actor | str = "user"
    creation_source: CreationSource | str = "web"
    source_thread_id: str
    target_thread_id: str
    source_point: ForkPoint = Field(default_factory=ForkPointLatestStable)
    title: str | None = None
    policy_ceiling: PolicyCeiling | None = None
    created_at: Timestamp | None = None

    wire_optional = frozenset({"title", "policy_ceiling", "created_at"})


class ThreadMergeBack(CommandBase):
    type: Literal["thread.merge_back"] = "thread.merge_back"
    created_by: Actor | str = "user"
    creation_source: CreationSource | str = "web"
    source_thread_id: str
    target_thread_id: str
    source_point: ForkPoint = Field(default_factory=ForkPointLatestStable)
    created_at: Timestamp | None = None

    wire_optional = frozenset({"created_at"})


THREAD_COMMANDS: tuple[type[CommandBase], ...] = (
    ThreadArchive, ThreadUnarchive, ThreadDelete, ThreadAutoSettle, ThreadSnooze,
    ThreadUnsnooze, ThreadPin, ThreadUnpin, ThreadPinReorder, ThreadVisit, ThreadMarkUnread,
    ThreadMetadataUpdate, ThreadTitleRegenerationComplete, ThreadRuntimeModeSet,
    ThreadInteractionModeSet, ThreadModelSelectionSet, ProviderSwitch, ThreadFork,
    ThreadMergeBack,
)

__all__ = [*(cls.__name__ for cls in THREAD_COMMANDS), 'ForkPoint', 'ForkPointLatestStable', 'ForkPointRun', 'ForkPointCheckpoint', 'UnknownForkPoint', 'PolicyCeiling', 'ThreadCommand', 'THREAD_COMMANDS']
