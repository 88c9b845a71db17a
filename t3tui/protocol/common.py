"""Small shapes shared by several entities: model selection, lineage, fork origins."""

from typing import Any, Literal

from .base import Timestamp, WireModel, tagged_union
from .enums import RelationshipToParent


class ModelOption(WireModel):
    """One provider option of a model selection."""

    id: str
    value: Any = None


class ModelSelection(WireModel):
    """`{instanceId, model, options?}`; older data says `provider` instead of `instanceId`."""

    instance_id: str | None = None
    model: str = ""
    options: list[ModelOption] | None = None

    wire_optional = frozenset({"options"})

    @property
    def instance(self) -> str | None:
        """The provider instance, from `instanceId` or the older `provider` key."""
        if self.instance_id is not None:
            return self.instance_id
        legacy = (self.model_extra or {}).get("provider")
        return legacy if isinstance(legacy, str) else None


class Lineage(WireModel):
    """The tree link: nest only `subagent` children; forks are not subagents."""

    parent_thread_id: str | None = None
    relationship_to_parent: RelationshipToParent | str | None = None
    root_thread_id: str | None = None


class ForkedFromRun(WireModel):
    type: Literal["run"] = "run"
    thread_id: str = ""
    run_id: str = ""


class ForkedFromNode(WireModel):
    """For a delegated child, `nodeId` is the task id."""

    type: Literal["node"] = "node"
    node_id: str = ""


class ForkedFromProviderThread(WireModel):
    type: Literal["provider_thread"] = "provider_thread"
    provider_thread_id: str = ""
    provider_turn_id: str | None = None

    wire_optional = frozenset({"provider_turn_id"})


class UnknownForkedFrom(WireModel):
    """A fork origin of a type this client does not know; all keys are kept."""

    type: str | None = None


ForkedFrom = tagged_union(
    "type",
    {"run": ForkedFromRun, "node": ForkedFromNode, "provider_thread": ForkedFromProviderThread},
    UnknownForkedFrom,
)


class PendingBackgroundTask(WireModel):
    """Provider background work still alive after the turn."""

    task_id: str
    description: str | None = None
    task_type: str | None = None

    wire_optional = frozenset({"description", "task_type"})


class PendingRuntimeRequestRef(WireModel):
    """The shell's "needs input" marker; `id` is the `requestId` to respond to."""

    id: str
    kind: str | None = None
    created_at: Timestamp | None = None


class LatestVisibleMessage(WireModel):
    """One-line preview of the latest visible message."""

    id: str
    role: str | None = None
    text: str = ""
    updated_at: Timestamp | None = None


class TitleRegeneration(WireModel):
    request_id: str = ""
    started_at: Timestamp | None = None


class SourcePlanRef(WireModel):
    thread_id: str = ""
    plan_id: str = ""
