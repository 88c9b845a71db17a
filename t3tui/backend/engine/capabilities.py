"""What the scripted provider can do, as the V2 contract's complete capability set.

Every flag of every group is required upstream (`OrchestrationV2ProviderCapabilities`); a
sparse set fails decoding of the whole snapshot. Each value says what this backend really
does, so a client that reads them (T3's web app) offers only what works here.
"""

from __future__ import annotations

from typing import Any


def provider_capabilities(*, steering: bool) -> dict[str, Any]:
    return {
        "sessions": {
            # a delegated child on its parent's instance joins the parent's session
            "supportsMultipleProviderThreadsPerSession": True,
            "supportsModelSwitchInSession": False,
            "supportsProviderSwitchingViaHandoff": False,
            "supportsRuntimeModeSwitchInSession": False,
            "pendingRequestsSurviveRestart": False,
        },
        "threads": {
            "canCreateEmptyThread": False,
            "canReadThreadSnapshot": False,
            "canRollbackThread": False,
            "canForkThread": False,
            "canForkFromTurn": False,
            "canForkFromSubagentThread": False,
            "exposesNativeThreadId": True,
        },
        "turns": {
            "exposesNativeTurnId": True,
            "emitsTurnStarted": True,
            "emitsTurnCompleted": True,
            "supportsInterrupt": True,
            "supportsActiveSteering": steering,
            "supportsSteeringByInterruptRestart": True,
            "supportsQueuedMessages": True,
            "terminalStatusQuality": "strong",
        },
        "streaming": {
            "streamsAssistantText": False,  # a reply arrives whole
            "streamsReasoning": False,
            "streamsToolOutput": True,  # command output updates its item while it runs
            "streamsPlanText": False,
            "emitsMessageCompleted": True,
        },
        "tools": {
            "exposesToolItemIds": True,
            "emitsToolStarted": True,
            "emitsToolCompleted": True,
            "emitsToolOutput": True,
            "supportsMcpTools": False,
            "supportsDynamicToolCallbacks": True,  # delegate_task and friends
        },
        "approvals": {
            "supportsCommandApproval": True,
            "supportsFileReadApproval": False,
            "supportsFileChangeApproval": False,
            "supportsApplyPatchApproval": False,
            "approvalsHaveNativeRequestIds": True,
            "approvalCallbacksAreLiveOnly": True,
            "approvalsCanOriginateFromSubagents": False,
        },
        "planning": {
            "emitsPlanUpdated": False,
            "emitsTodoList": False,
            "emitsProposedPlan": False,
            "supportsStructuredQuestions": False,
            "planDeltasHaveItemIds": False,
        },
        "subagents": {
            # app-owned delegation: children are T3 threads, not provider-native subagents
            "supportsSubagents": True,
            "exposesSubagentThreadIds": False,
            "emitsSubagentLifecycle": True,
            "canWaitForSubagents": True,
            "canCloseSubagents": False,
            "canForkSubagentThread": False,
        },
        "context": {
            "acceptsSystemContext": False,
            "acceptsDeveloperContext": False,
            "acceptsSyntheticUserContext": True,  # delegated-completion wake messages
            "canGenerateSummaries": False,
            "canConsumeHandoffSummaries": False,
            "supportsDeltaHandoff": False,
            "supportsFullThreadHandoff": False,
            "maxRecommendedHandoffChars": None,
        },
        "checkpointing": {
            # checkpoints name the end of each turn; no filesystem snapshot is taken
            "appCanCheckpointFilesystem": False,
            "supportsNestedCheckpointScopes": False,
            "providerCanRollbackConversation": False,
            "providerRollbackReturnsSnapshot": False,
            "providerCanReadConversationSnapshot": False,
        },
        "identity": {
            "nativeThreadIds": "strong",
            "nativeTurnIds": "strong",
            "nativeItemIds": "strong",
            "nativeRequestIds": "strong",
        },
    }
