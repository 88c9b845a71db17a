"""V2 domain events (§9): the envelope, typed payloads for known types, raw for the rest."""

from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter, model_validator

from .artifacts import (
    Checkpoint,
    CheckpointRollbackRequested,
    CheckpointScope,
    ContextHandoff,
    ContextTransfer,
    PlanArtifact,
)
from .base import Timestamp, WireModel
from .providers import ProviderSession, ProviderSessionDetached, ProviderThread, ProviderTurn
from .requests import ConversationMessage, RuntimeRequest
from .runs import ExecutionNode, Run, RunAttempt, Subagent
from .threads import AppThread
from .turn_items import TurnItem

THREAD_EVENT_TYPES = frozenset(
    {
        "thread.created",
        "thread.archived",
        "thread.unarchived",
        "thread.deleted",
        "thread.settled",
        "thread.unsettled",
        "thread.snoozed",
        "thread.unsnoozed",
        "thread.pinned",
        "thread.unpinned",
        "thread.pin-reordered",
        "thread.visited",
        "thread.marked-unread",
        "thread.metadata-updated",
        "thread.runtime-mode-updated",
        "thread.interaction-mode-updated",
        "thread.model-selection-updated",
        "thread.provider-switched",
    }
)
"""Events whose payload is the AppThread after the change."""

_PAYLOAD_TYPES: dict[str, type[WireModel]] = {
    **dict.fromkeys(THREAD_EVENT_TYPES, AppThread),
    "run.created": Run,
    "run.updated": Run,
    "run-attempt.created": RunAttempt,
    "run-attempt.updated": RunAttempt,
    "node.updated": ExecutionNode,
    "subagent.updated": Subagent,
    "provider-session.attached": ProviderSession,
    "provider-session.updated": ProviderSession,
    "provider-session.detached": ProviderSessionDetached,
    "provider-thread.updated": ProviderThread,
    "provider-turn.updated": ProviderTurn,
    "runtime-request.updated": RuntimeRequest,
    "message.updated": ConversationMessage,
    "plan.updated": PlanArtifact,
    "checkpoint-scope.created": CheckpointScope,
    "checkpoint.captured": Checkpoint,
    "checkpoint.rollback-requested": CheckpointRollbackRequested,
    "context-handoff.updated": ContextHandoff,
    "context-transfer.created": ContextTransfer,
    "context-transfer.updated": ContextTransfer,
}

PAYLOAD_VALIDATORS: dict[str, Callable[[Any], Any]] = {
    **{etype: cls.model_validate for etype, cls in _PAYLOAD_TYPES.items()},
    "turn-item.updated": TypeAdapter(TurnItem).validate_python,
}
"""Known event types and how their payload decodes."""

KNOWN_EVENT_TYPES = frozenset(PAYLOAD_VALIDATORS)


class DomainEvent(WireModel):
    """One domain event; `payload` is typed for known types, the raw JSON value otherwise."""

    id: str
    thread_id: str = ""
    run_id: str | None = None
    node_id: str | None = None
    driver: str | None = None
    provider_instance_id: str | None = None
    raw_event_id: str | None = None
    occurred_at: Timestamp | None = None
    type: str
    payload: Any = None

    wire_optional = frozenset(
        {"run_id", "node_id", "driver", "provider_instance_id", "raw_event_id"}
    )

    @model_validator(mode="after")
    def _type_payload(self) -> "DomainEvent":
        validate = PAYLOAD_VALIDATORS.get(self.type)
        if validate is not None:
            # Assign through __dict__: validate_assignment is off and fields_set must not change.
            self.__dict__["payload"] = validate(self.payload)
        return self

    @property
    def known(self) -> bool:
        """False when this client does not know the event type (payload stays raw)."""
        return self.type in PAYLOAD_VALIDATORS


def decode_event(obj: Any) -> DomainEvent:
    """Decode one event envelope (raises `ProtocolError`)."""
    return DomainEvent.from_wire(obj)
