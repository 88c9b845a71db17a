"""The thread projection (§8): every entity of one thread."""

from pydantic import Field

from .artifacts import Checkpoint, CheckpointScope, ContextHandoff, ContextTransfer, PlanArtifact
from .base import Timestamp, WireModel
from .providers import ProviderSession, ProviderThread, ProviderTurn
from .requests import ConversationMessage, RuntimeRequest
from .runs import ExecutionNode, Run, RunAttempt, Subagent
from .threads import AppThread
from .turn_items import TurnItem, VisibleTurnItem


class ThreadProjection(WireModel):
    """`getThreadProjection` result and the thread stream's snapshot; lists default to []."""

    thread: AppThread | None = None
    runs: list[Run] = Field(default_factory=list)
    attempts: list[RunAttempt] = Field(default_factory=list)
    nodes: list[ExecutionNode] = Field(default_factory=list)
    subagents: list[Subagent] = Field(default_factory=list)
    provider_sessions: list[ProviderSession] = Field(default_factory=list)
    provider_threads: list[ProviderThread] = Field(default_factory=list)
    provider_turns: list[ProviderTurn] = Field(default_factory=list)
    runtime_requests: list[RuntimeRequest] = Field(default_factory=list)
    messages: list[ConversationMessage] = Field(default_factory=list)
    plans: list[PlanArtifact] = Field(default_factory=list)
    turn_items: list[TurnItem] = Field(default_factory=list)
    checkpoint_scopes: list[CheckpointScope] = Field(default_factory=list)
    checkpoints: list[Checkpoint] = Field(default_factory=list)
    context_handoffs: list[ContextHandoff] = Field(default_factory=list)
    context_transfers: list[ContextTransfer] = Field(default_factory=list)
    visible_turn_items: list[VisibleTurnItem] = Field(default_factory=list)
    updated_at: Timestamp | None = None
