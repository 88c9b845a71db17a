"""Provider sessions, threads and turns (§8.7 to §8.9)."""

from typing import Any, Literal

from pydantic import Field

from .base import Timestamp, WireModel
from .common import PendingBackgroundTask
from .enums import (
    NativeRefStrength,
    ProviderSessionStatus,
    ProviderThreadStatus,
    ProviderTurnStatus,
)
from .refs import NativeRef, native_id_of


class _CapabilityGroup(WireModel):
    """Every flag is optional: absent means "not advertised"."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        cls.wire_optional = frozenset(cls.model_fields)
        super().__pydantic_init_subclass__(**kwargs)


class SessionCapabilities(_CapabilityGroup):
    supports_multiple_provider_threads_per_session: bool | None = None
    supports_model_switch_in_session: bool | None = None
    supports_provider_switching_via_handoff: bool | None = None
    supports_runtime_mode_switch_in_session: bool | None = None
    pending_requests_survive_restart: bool | None = None


class TurnCapabilities(_CapabilityGroup):
    exposes_native_turn_id: bool | None = None
    emits_turn_started: bool | None = None
    emits_turn_completed: bool | None = None
    supports_interrupt: bool | None = None
    supports_active_steering: bool | None = None
    supports_queued_messages: bool | None = None
    supports_steering_by_interrupt_restart: bool | None = None
    terminal_status_quality: NativeRefStrength | str | None = None


class SubagentCapabilities(_CapabilityGroup):
    supports_subagents: bool | None = None
    exposes_subagent_thread_ids: bool | None = None
    emits_subagent_lifecycle: bool | None = None
    can_wait_for_subagents: bool | None = None
    can_close_subagents: bool | None = None
    can_fork_subagent_thread: bool | None = None


class ProviderCapabilities(_CapabilityGroup):
    """Capability groups; the groups t3tui does not read stay raw dicts."""

    sessions: SessionCapabilities | None = None
    threads: dict[str, Any] | None = None
    turns: TurnCapabilities | None = None
    streaming: dict[str, Any] | None = None
    tools: dict[str, Any] | None = None
    approvals: dict[str, Any] | None = None
    planning: dict[str, Any] | None = None
    subagents: SubagentCapabilities | None = None
    context: dict[str, Any] | None = None
    checkpointing: dict[str, Any] | None = None
    identity: dict[str, Any] | None = None


class ProviderSession(WireModel):
    """A live provider process/session (`providerSessions[]`)."""

    id: str
    driver: str | None = None
    provider_instance_id: str = ""
    cwd: str | None = None
    model: str | None = None
    capabilities: ProviderCapabilities = Field(default_factory=ProviderCapabilities)
    status: ProviderSessionStatus | str
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    last_error: str | None = None

    @property
    def shares_threads(self) -> bool:
        """True when one session can hold several threads (e.g. parent and child)."""
        sessions = self.capabilities.sessions
        return bool(sessions and sessions.supports_multiple_provider_threads_per_session)


class ProviderThread(WireModel):
    """A provider-side thread (`providerThreads[]`)."""

    id: str
    driver: str | None = None
    provider_instance_id: str = ""
    provider_session_id: str | None = None
    app_thread_id: str | None = None
    owner_node_id: str | None = None
    native_thread_ref: NativeRef = None
    native_conversation_head_ref: NativeRef = None
    first_run_ordinal: int | None = None
    last_run_ordinal: int | None = None
    handoff_ids: list[str] = Field(default_factory=list)
    forked_from: Any = None
    pending_background_tasks: list[PendingBackgroundTask] = Field(default_factory=list)
    status: ProviderThreadStatus | str
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None

    @property
    def native_thread_id(self) -> str | None:
        """The provider's own thread id (from a `ProviderRef` or a legacy string)."""
        return native_id_of(self.native_thread_ref)


class TokenUsage(WireModel):
    """Token counters; `updatedAt` is a good progress heartbeat."""

    used_tokens: int = 0
    max_tokens: int | None = None
    input_tokens: int | None = None
    cached_input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_output_tokens: int | None = None
    updated_at: Timestamp | None = None

    wire_optional = frozenset(
        {
            "max_tokens",
            "input_tokens",
            "cached_input_tokens",
            "output_tokens",
            "reasoning_output_tokens",
        }
    )


class TurnTokenUsage(WireModel):
    """A turn's own usage (`turnTokenUsage`): `usageStatus` complete, partial or unavailable."""

    usage_scope: Literal["main_agent"] | str | None = None
    usage_status: Literal["complete", "partial", "unavailable"] | str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_input_tokens: int | None = None
    cache_creation_tokens: int | None = None
    reasoning_tokens: int | None = None
    has_subagents: bool | None = None

    wire_optional = frozenset(
        {"input_tokens", "output_tokens", "cached_input_tokens", "cache_creation_tokens",
         "reasoning_tokens"}
    )


class ProviderTurn(WireModel):
    """What the provider says about one turn (`providerTurns[]`)."""

    id: str
    provider_thread_id: str | None = None
    node_id: str | None = None
    run_attempt_id: str | None = None
    native_turn_ref: NativeRef = None
    ordinal: int | None = None
    status: ProviderTurnStatus | str
    started_at: Timestamp | None = None
    completed_at: Timestamp | None = None
    token_usage: TokenUsage | None = None
    turn_token_usage: TurnTokenUsage | None = None

    wire_optional = frozenset({"token_usage", "turn_token_usage"})

    @property
    def native_turn_id(self) -> str | None:
        """The provider's own turn id (from a `ProviderRef` or a legacy string)."""
        return native_id_of(self.native_turn_ref)


class ProviderSessionDetached(WireModel):
    """Payload of `provider-session.detached`."""

    provider_session_id: str
    detached_at: Timestamp | None = None
    reason: str | None = None

    wire_optional = frozenset({"reason"})
