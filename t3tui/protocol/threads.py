"""Thread and project shapes: AppThread, the V2 thread shell row, project shell (§5.1, §7, §8.1)."""

from typing import Any

from pydantic import Field

from .base import EventSequence, Timestamp, WireModel
from .common import (
    ForkedFrom,
    LatestVisibleMessage,
    Lineage,
    ModelSelection,
    PendingBackgroundTask,
    PendingRuntimeRequestRef,
    TitleRegeneration,
)
from .enums import (
    ActivityRunStatus,
    Actor,
    CreationSource,
    InteractionMode,
    RuntimeMode,
    SettledOverride,
    ShellThreadStatus,
)

_INBOX_OPTIONAL = frozenset(
    {
        "linked_pull_request",
        "history_origin",
        "unsettled_at",
        "snoozed_until",
        "snoozed_at",
        "pinned_at",
        "pin_order_key",
        "title_regeneration",
    }
)


class _ThreadCommon(WireModel):
    """Identity, lineage, mode and inbox fields shared by AppThread and the shell row."""

    id: str
    project_id: str = ""
    title: str = ""
    created_by: Actor | str | None = None
    creation_source: CreationSource | str | None = None
    provider_instance_id: str = ""
    model_selection: ModelSelection | None = None
    runtime_mode: RuntimeMode | str = "full-access"
    interaction_mode: InteractionMode | str = "default"
    branch: str | None = None
    worktree_path: str | None = None
    linked_pull_request: dict[str, Any] | None = None
    lineage: Lineage = Field(default_factory=Lineage)
    forked_from: ForkedFrom | None = None
    active_provider_thread_id: str | None = None
    history_origin: str | None = None
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    archived_at: Timestamp | None = None
    deleted_at: Timestamp | None = None
    settled_override: SettledOverride | str | None = None
    settled_at: Timestamp | None = None
    unsettled_at: Timestamp | None = None
    snoozed_until: Timestamp | None = None
    snoozed_at: Timestamp | None = None
    pinned_at: Timestamp | None = None
    pin_order_key: str | None = None
    last_visited_at: Timestamp | None = None
    title_regeneration: TitleRegeneration | None = None

    @property
    def subagent_parent_id(self) -> str | None:
        """The parent when this thread is a subagent child (forks are not children)."""
        if self.lineage.relationship_to_parent == "subagent":
            return self.lineage.parent_thread_id
        return None


class AppThread(_ThreadCommon):
    """`projection.thread` and the payload of `thread.*` events. No run status fields."""

    wire_optional = _INBOX_OPTIONAL


class ThreadShell(_ThreadCommon):
    """`OrchestrationV2ThreadShell`: the cheap row streamed for every thread."""

    latest_run_id: str | None = None
    latest_run_requested_at: Timestamp | None = None
    latest_run_started_at: Timestamp | None = None
    latest_run_completed_at: Timestamp | None = None
    active_run_id: str | None = None
    activity_run_status: ActivityRunStatus | str | None = None
    status: ShellThreadStatus | str = "idle"
    last_error: str | None = None
    pending_runtime_request: PendingRuntimeRequestRef | None = None
    latest_visible_message: LatestVisibleMessage | None = None
    latest_user_message_at: Timestamp | None = None
    has_actionable_proposed_plan: bool = False
    pending_background_tasks: list[PendingBackgroundTask] = Field(default_factory=list)
    item_count: int = 0
    visible_item_count: int = 0
    # Seen only on newer builds (varies by server build).
    background_liveness: str | None = None
    auto_settle_disabled_at: Timestamp | None = None
    latest_user_authored_message_at: Timestamp | None = None
    usage_limit_reset_at: Timestamp | None = None
    last_error_class: str | None = None

    wire_optional = _INBOX_OPTIONAL | {
        "last_visited_at",
        "latest_run_requested_at",
        "latest_run_started_at",
        "latest_run_completed_at",
        "activity_run_status",
        "last_error",
        "background_liveness",
        "auto_settle_disabled_at",
        "latest_user_authored_message_at",
        "usage_limit_reset_at",
        "last_error_class",
    }


class ProjectShell(WireModel):
    """A project row of the shell stream."""

    id: str
    title: str = ""
    workspace_root: str = ""
    repository_identity: Any = None
    default_model_selection: ModelSelection | None = None
    default_thread_env_mode: str | None = None
    auto_pull: bool | None = None
    favicon_path: str | None = None
    project_icon: Any = None
    scripts: list[Any] = Field(default_factory=list)
    pinned_at: Timestamp | None = None
    pin_order_key: str | None = None
    archived_at: Timestamp | None = None
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None

    wire_optional = frozenset(
        {
            "repository_identity",
            "default_thread_env_mode",
            "auto_pull",
            "favicon_path",
            "project_icon",
            "pinned_at",
            "pin_order_key",
            "archived_at",
        }
    )


class ShellSnapshot(WireModel):
    """The full shell state; a later snapshot on the same stream replaces it all."""

    schema_version: int = 1
    snapshot_sequence: EventSequence
    projects: list[ProjectShell] = Field(default_factory=list)
    threads: list[ThreadShell] = Field(default_factory=list)
    archived_threads: list[ThreadShell] = Field(default_factory=list)
    resolved_repository_identity_roots: list[str] | None = None

    wire_optional = frozenset({"resolved_repository_identity_roots"})
