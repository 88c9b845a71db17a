"""Runtime requests (approvals, questions) and conversation messages (§8.10, §8.11)."""

from typing import Any, Literal

from pydantic import Field

from .base import Timestamp, WireModel, tagged_union
from .enums import (
    Actor,
    ApprovalDecision,
    CreationSource,
    MessageRole,
    RuntimeRequestKind,
    RuntimeRequestStatus,
)
from .refs import NativeRef, native_id_of


class LiveResponse(WireModel):
    type: Literal["live"] = "live"
    provider_session_id: str | None = None


class MessageResponse(WireModel):
    type: Literal["message"] = "message"


class NotResumableResponse(WireModel):
    type: Literal["not_resumable"] = "not_resumable"
    reason: str | None = None


class UnknownResponseCapability(WireModel):
    type: str | None = None


ResponseCapability = tagged_union(
    "type",
    {"live": LiveResponse, "message": MessageResponse, "not_resumable": NotResumableResponse},
    UnknownResponseCapability,
)


class RuntimeRequest(WireModel):
    """An approval or question; `id` is the `requestId` for `runtime-request.respond`."""

    id: str
    node_id: str | None = None
    provider_turn_id: str | None = None
    native_request_ref: NativeRef = None
    kind: RuntimeRequestKind | str | None = None
    status: RuntimeRequestStatus | str
    response_capability: ResponseCapability | None = None
    created_at: Timestamp | None = None
    resolved_at: Timestamp | None = None
    decision: ApprovalDecision | str | None = None
    answers: dict[str, Any] | None = None

    wire_optional = frozenset({"decision", "answers"})

    @property
    def native_request_id(self) -> str | None:
        """The provider's own request id (from a `ProviderRef` or a legacy string)."""
        return native_id_of(self.native_request_ref)


class MessageDelegatedCompletion(WireModel):
    """Marks a server-authored wake message."""

    parent_run_id: str = ""
    generation: int = 0
    task_ids: list[str] = Field(default_factory=list)


class ConversationMessage(WireModel):
    """A message (`messages[]`); while `streaming`, `text` is the text so far."""

    id: str
    created_by: Actor | str | None = None
    creation_source: CreationSource | str | None = None
    thread_id: str = ""
    run_id: str | None = None
    node_id: str | None = None
    role: MessageRole | str | None = None
    text: str = ""
    attachments: list[Any] = Field(default_factory=list)
    streaming: bool = False
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    delegated_completion: MessageDelegatedCompletion | None = None

    wire_optional = frozenset({"delegated_completion"})
