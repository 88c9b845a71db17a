"""Strict models of a provider session's capabilities: every flag of every group is required."""

from pydantic import StrictBool

from ..enums import NativeRefStrength
from .scalars import PositiveInt, Strict


class SessionCapabilities(Strict):
    supports_multiple_provider_threads_per_session: StrictBool
    supports_model_switch_in_session: StrictBool
    supports_provider_switching_via_handoff: StrictBool
    supports_runtime_mode_switch_in_session: StrictBool
    pending_requests_survive_restart: StrictBool


class ThreadCapabilities(Strict):
    can_create_empty_thread: StrictBool
    can_read_thread_snapshot: StrictBool
    can_rollback_thread: StrictBool
    can_fork_thread: StrictBool
    can_fork_from_turn: StrictBool
    can_fork_from_subagent_thread: StrictBool
    exposes_native_thread_id: StrictBool


class TurnCapabilities(Strict):
    exposes_native_turn_id: StrictBool
    emits_turn_started: StrictBool
    emits_turn_completed: StrictBool
    supports_interrupt: StrictBool
    supports_active_steering: StrictBool
    supports_steering_by_interrupt_restart: StrictBool
    supports_queued_messages: StrictBool
    terminal_status_quality: NativeRefStrength


class StreamingCapabilities(Strict):
    streams_assistant_text: StrictBool
    streams_reasoning: StrictBool
    streams_tool_output: StrictBool
    streams_plan_text: StrictBool
    emits_message_completed: StrictBool


class ToolCapabilities(Strict):
    exposes_tool_item_ids: StrictBool
    emits_tool_started: StrictBool
    emits_tool_completed: StrictBool
    emits_tool_output: StrictBool
    supports_mcp_tools: StrictBool
    supports_dynamic_tool_callbacks: StrictBool


class ApprovalCapabilities(Strict):
    supports_command_approval: StrictBool
    supports_file_read_approval: StrictBool
    supports_file_change_approval: StrictBool
    supports_apply_patch_approval: StrictBool
    approvals_have_native_request_ids: StrictBool
    approval_callbacks_are_live_only: StrictBool
    approvals_can_originate_from_subagents: StrictBool


class PlanningCapabilities(Strict):
    emits_plan_updated: StrictBool
    emits_todo_list: StrictBool
    emits_proposed_plan: StrictBool
    supports_structured_questions: StrictBool
    plan_deltas_have_item_ids: StrictBool


class SubagentCapabilities(Strict):
    supports_subagents: StrictBool
    exposes_subagent_thread_ids: StrictBool
    emits_subagent_lifecycle: StrictBool
    can_wait_for_subagents: StrictBool
    can_close_subagents: StrictBool
    can_fork_subagent_thread: StrictBool


class ContextCapabilities(Strict):
    accepts_system_context: StrictBool
    accepts_developer_context: StrictBool
    accepts_synthetic_user_context: StrictBool
    can_generate_summaries: StrictBool
    can_consume_handoff_summaries: StrictBool
    supports_delta_handoff: StrictBool
    supports_full_thread_handoff: StrictBool
    max_recommended_handoff_chars: PositiveInt | None


class CheckpointCapabilities(Strict):
    app_can_checkpoint_filesystem: StrictBool
    supports_nested_checkpoint_scopes: StrictBool
    provider_can_rollback_conversation: StrictBool
    provider_rollback_returns_snapshot: StrictBool
    provider_can_read_conversation_snapshot: StrictBool


class IdentityCapabilities(Strict):
    native_thread_ids: NativeRefStrength
    native_turn_ids: NativeRefStrength
    native_item_ids: NativeRefStrength
    native_request_ids: NativeRefStrength


class ProviderCapabilities(Strict):
    sessions: SessionCapabilities
    threads: ThreadCapabilities
    turns: TurnCapabilities
    streaming: StreamingCapabilities
    tools: ToolCapabilities
    approvals: ApprovalCapabilities
    planning: PlanningCapabilities
    subagents: SubagentCapabilities
    context: ContextCapabilities
    checkpointing: CheckpointCapabilities
    identity: IdentityCapabilities
