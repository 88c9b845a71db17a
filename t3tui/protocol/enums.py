"""Enumerations of the wire (§7, §8). Fields use `Literal[...] | str` so an unknown value
from a newer server decodes as a plain string instead of failing."""

from typing import Literal

Actor = Literal["user", "agent", "system"]
CreationSource = Literal["web", "mobile", "mcp", "provider", "server"]
RuntimeMode = Literal["approval-required", "auto-accept-edits", "auto", "full-access"]
InteractionMode = Literal["default", "plan"]
ThreadLocation = Literal["active", "archive"]
RelationshipToParent = Literal["fork", "subagent"]
SettledOverride = Literal["settled", "active"]
ActivityRunStatus = Literal["preparing", "starting", "running", "waiting"]

RunStatus = Literal[
    "preparing",
    "queued",
    "starting",
    "running",
    "waiting",
    "completed",
    "interrupted",
    "failed",
    "cancelled",
    "rolled_back",
]
ShellThreadStatus = Literal["idle"] | RunStatus
"""A shell row's `status`: its latest run's status, `idle` before any run."""
ACTIVE_RUN_STATUSES = frozenset({"preparing", "queued", "starting", "running", "waiting"})
TERMINAL_RUN_STATUSES = frozenset({"completed", "interrupted", "failed", "cancelled", "rolled_back"})

AttemptReason = Literal["initial", "steering_restart", "retry", "provider_recovery"]
AttemptStatus = Literal[
    "pending", "running", "completed", "interrupted", "failed", "cancelled", "superseded"
]
NodeKind = Literal[
    "root_turn",
    "assistant_message",
    "reasoning",
    "plan",
    "todo_list",
    "tool_call",
    "approval_request",
    "user_input_request",
    "subagent",
    "hook",
    "system",
]
NodeStatus = Literal[
    "idle",
    "pending",
    "running",
    "waiting",
    "completed",
    "interrupted",
    "failed",
    "cancelled",
    "rolled_back",
]
SubagentOrigin = Literal["provider_native", "app_owned"]
SubagentStatus = Literal[
    "idle", "pending", "running", "waiting", "completed", "failed", "cancelled", "interrupted"
]
TERMINAL_SUBAGENT_STATUSES = frozenset({"completed", "failed", "cancelled", "interrupted"})
CompletionWake = Literal["always", "settled_only"]
CompletionDeliveryState = Literal["pending", "claimed", "acknowledged", "delivered", "disposed"]
DelegatedDisposition = Literal["open", "stopped", "disposed"]

ProviderSessionStatus = Literal["starting", "ready", "running", "waiting", "stopped", "error"]
ProviderThreadStatus = Literal["not_loaded", "idle", "active", "archived", "closed", "error"]
ProviderTurnStatus = Literal["pending", "running", "completed", "interrupted", "failed", "cancelled"]
NativeRefStrength = Literal["strong", "weak", "none"]

ProviderRequestKind = Literal["command", "file-read", "file-change", "mcp-elicitation", "permission"]
RuntimeRequestKind = Literal[
    "command",
    "file-read",
    "file-change",
    "mcp-elicitation",
    "permission",
    "dynamic_tool_call",
    "user_input",
    "auth_refresh",
]
RuntimeRequestStatus = Literal["pending", "resolved", "expired", "cancelled"]
ApprovalDecision = Literal["accept", "acceptForSession", "acceptAlways", "decline", "cancel"]

MessageRole = Literal["user", "assistant", "system"]
TurnItemStatus = Literal[
    "idle", "pending", "running", "waiting", "completed", "failed", "cancelled", "interrupted"
]
InputIntent = Literal["turn_start", "queued_turn", "steer", "promoted_queued_to_steer"]
Visibility = Literal["local", "inherited", "synthetic"]

ContextTransferType = Literal[
    "fork", "provider_handoff", "merge_back", "subagent_spawn", "subagent_result"
]
ContextTransferStatus = Literal[
    "pending", "resolved_native", "resolved_portable", "failed", "consumed", "superseded"
]
