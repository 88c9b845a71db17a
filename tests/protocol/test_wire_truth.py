"""One wire truth: the tolerant models (`t3tui.protocol`) agree with the strict contract.

`t3tui.protocol.contract` says what the V2 contract requires; `t3tui.protocol` decodes what a
server sends. Both are written by hand, so this walks them side by side from every entry point
of the wire (stream items, RPC envelopes and errors, commands, method inputs and results,
event payloads): every field the contract names must exist in the tolerant model under the
same wire key, with a compatible type, optional where the contract lets it be absent, nullable
where the contract sends null, and the same enum members (see `wire_pairs.py`).

Everything the walk accepts without a full match is listed below, on purpose and with its
reason; a new difference fails the test until it is fixed or listed here.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Annotated, Any, get_args, get_origin

import pytest
from pydantic import BaseModel

from t3tui.protocol import commands, errors, events, methods, rpc, stream
from t3tui.protocol import contract as strict
from t3tui.protocol.contract import check as strict_check
from t3tui.protocol.contract import commands as strict_commands
from t3tui.protocol.contract import rpc as strict_rpc
from t3tui.protocol.contract import streams as strict_streams
from t3tui.protocol.turn_items import TurnItem

from .wire_pairs import Walk, field_annotation, tags

# Tolerant fields the V2 contract does not name. Kept: decoding them costs nothing and
# what t3tui sends stays within the contract (each is optional and never sent unset).
TOLERANT_ONLY = {
    # newer server builds than the V2 contract (protocol doc, "what the contract says")
    "EnvironmentAuthorizationError.requiredScope",
    "SubscribeThreadInput.acceptBoundedSnapshot",
    "SubscribeThreadInput.acceptCompactTurnItems",
    "ThreadShell.autoSettleDisabledAt",
    "ThreadShell.backgroundLiveness",
    "ThreadShell.lastErrorClass",
    "ThreadShell.latestUserAuthoredMessageAt",
    "ThreadShell.usageLimitResetAt",
    # the contract's AuthorizationError has no cause; every other RPC error may carry one
    "EnvironmentAuthorizationError.cause",
    # the protocol doc's "a snapshot may also carry" was read as inside the snapshot; the
    # contract has the roots beside it (ShellSnapshotItem), which is read as well
    "ShellSnapshot.resolvedRepositoryIdentityRoots",
    # in the tolerant model before this check; no contract names it (the contract's is `kind`)
    "PlanArtifact.type",
}

# Contract enums the tolerant model keeps as plain text: t3tui only shows these (or passes
# them back verbatim), so a value a newer server adds is shown, never refused.
OPEN_TEXT = {
    "AppThread.historyOrigin",
    "ApprovalOption.decision",
    "ApprovalRequest.requestKind",
    "Checkpoint.status",
    "CheckpointScope.kind",
    "ContextHandoff.status",
    "ContextHandoff.strategy",
    "ContextTransfer.createdBy",
    "Handoff.strategy",
    "LatestVisibleMessage.role",
    "PendingRequestSummary.kind",
    "PlanStep.status",
    "ProposedPlan.status",
    "ProviderFailure.class",
    "SubagentItem.origin",
    "ThreadShell.historyOrigin",
    "ThreadUnsettle.reason",
    "TodoList.status",
    "UserInputRequest.responseMode",
}

# The contract types these times as plain strings; every server writes ISO-8601 UTC there,
# and t3tui reads them as times like every other timestamp.
TEXT_AS_TIME = {
    "ProjectShell.archivedAt",
    "ProjectShell.createdAt",
    "ProjectShell.pinnedAt",
    "ProjectShell.updatedAt",
    "ProviderTurnTokenUsage.updatedAt",
}

# A provider's native reference is decoded by `refs.NativeRef` (a ProviderRef object or an
# old build's plain id), not as a model; tests/protocol/test_provider_ref.py covers it.
NATIVE_REF_KEYS = {
    "nativeConversationHeadRef", "nativeItemRef", "nativeRequestRef", "nativeTaskRef",
    "nativeThreadRef", "nativeTurnRef", "providerThreadRef", "providerTurnRef",
}

# Contract models the tolerant side keeps as raw JSON: t3tui carries them along and reads
# nothing in them (capability groups other than sessions/turns/subagents, search results,
# fork and transfer bookkeeping).
UNTYPED = {
    "CheckpointItem.files[]",
    "ContextTransfer.basePoint",
    "ContextTransfer.resolution",
    "FileSearch.results[]",
    "Fork.source",
    "Handoff.fromModelSelections[]",
    "MessageDispatch.delegatedCompletion",
    "ProviderCapabilities.approvals",
    "ProviderCapabilities.checkpointing",
    "ProviderCapabilities.context",
    "ProviderCapabilities.identity",
    "ProviderCapabilities.planning",
    "ProviderCapabilities.streaming",
    "ProviderCapabilities.threads",
    "ProviderCapabilities.tools",
    "ProviderThread.forkedFrom",
    "WebSearch.results[]",
}

# Contract models the walk does not reach, because the field holding them is raw JSON on the
# tolerant side (UNTYPED, NATIVE_REF_KEYS), or because they are a base or an empty input.
UNREACHED = {
    "ApprovalCapabilities", "CheckpointCapabilities", "ContextCapabilities",
    "IdentityCapabilities", "PlanningCapabilities", "StreamingCapabilities",
    "ThreadCapabilities", "ToolCapabilities",
    "DelegatedCompletionRef", "FileSearchResult", "HandoffResolution", "NativeForkResolution",
    "ProviderRef", "ProviderThreadFork", "WebSearchResult",
    "EmptyInput", "ThreadFields", "TurnItemBase",
}


def _union_members(annotation: Any) -> tuple[Any, ...]:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return get_args(annotation)


def _by_tag(models: Any, key: str) -> dict[Any, type[BaseModel]]:
    return {tag: model for model in models for tag in tags(model, key)}


@pytest.fixture(scope="module")
def walk() -> Walk:
    w = Walk()
    w.pair(strict_streams.ShellStreamItem, stream.ShellItem, "shell")
    w.pair(strict_streams.ArchivedShellStreamItem, stream.ShellItem, "archived shell")
    w.pair(strict_streams.ThreadStreamItem, stream.ThreadItem, "thread")
    w.pair(strict_rpc.ClientMessage, rpc.ClientMessage, "client message")
    w.pair(strict_rpc.ServerMessage, rpc.ServerMessage, "server message")
    w.variants(_by_tag(_union_members(strict_rpc.RpcError), "_tag"), errors.RPC_ERROR_TYPES,
               "rpc error", "_tag")
    w.variants(_by_tag(strict_commands.COMMANDS, "type"), commands.COMMAND_TYPES, "command",
               "type")
    w.models(strict_commands.LaunchThreadInput, commands.LaunchThreadInput, "launch input")
    w.models(strict_streams.ThreadLaunchResult, commands.LaunchThreadResult, "launch result")
    w.models(strict_streams.DispatchCommandResult, methods.DispatchResult, "dispatch result")
    w.models(strict_check.SubscribeShellInput, methods.SubscribeShellInput, "subscribeShell")
    w.models(strict_check.SubscribeThreadInput, methods.SubscribeThreadInput, "subscribeThread")
    w.models(strict_check.GetThreadProjectionInput, methods.GetThreadProjectionInput,
             "getThreadProjection")
    # A domain event's envelope is one tolerant model whose payload is typed by `type`
    # (events.PAYLOAD_VALIDATORS): each contract payload is paired with that type's model.
    payloads: dict[str, Any] = {**events._PAYLOAD_TYPES, "turn-item.updated": TurnItem}
    for variant in _union_members(strict_streams.DomainEvent):
        for event_type in tags(variant, "type"):
            if event_type not in payloads:
                w.problems.append(f"event {event_type!r}: the tolerant payload is untyped")
                continue
            w.pair(field_annotation(variant.model_fields["payload"]), payloads[event_type],
                   f"event<{event_type}>.payload")
    return w


def test_every_contract_field_is_in_the_tolerant_model_with_a_compatible_type(walk: Walk) -> None:
    assert walk.problems == []


def test_contract_enums_the_tolerant_model_keeps_as_text_are_listed(walk: Walk) -> None:
    assert walk.open_text == OPEN_TEXT


def test_contract_text_read_as_a_time_is_listed(walk: Walk) -> None:
    assert walk.text_as_time == TEXT_AS_TIME


def test_tolerant_only_fields_are_listed(walk: Walk) -> None:
    assert walk.tolerant_only == TOLERANT_ONLY


def test_contract_models_kept_raw_are_listed(walk: Walk) -> None:
    event_payloads = {u for u in walk.untyped if u.endswith(".payload") and "Event." in u}
    assert len(event_payloads) == len(_union_members(strict_streams.DomainEvent))
    native = {u for u in walk.untyped if u.split(".", 1)[1] in NATIVE_REF_KEYS}
    assert walk.untyped - event_payloads - native == UNTYPED


def test_the_walk_reaches_every_contract_model(walk: Walk) -> None:
    defined = set()
    for info in pkgutil.iter_modules(strict.__path__, strict.__name__ + "."):
        module = importlib.import_module(info.name)
        defined |= {
            obj for name, obj in vars(module).items()
            if inspect.isclass(obj) and issubclass(obj, BaseModel) and not name.startswith("_")
            and obj.__module__ == module.__name__ and obj is not strict.scalars.Strict
        }
    assert len(walk.strict_seen) > 100  # the walk really went deep
    assert {m.__name__ for m in defined - walk.strict_seen} == UNREACHED


def test_the_walk_reports_a_missing_field_a_narrower_enum_and_a_refused_null() -> None:
    """The check can fail: a tolerant model that lacks a field, knows fewer enum members, or
    refuses a null the contract sends is reported."""
    from typing import Literal

    from t3tui.protocol.base import WireModel
    from t3tui.protocol.contract.scalars import NonEmpty, Strict

    class Contract(Strict):
        id: NonEmpty
        status: Literal["a", "b"]
        note: NonEmpty | None
        extra: NonEmpty

    class Tolerant(WireModel):
        id: str
        status: Literal["a"] | str = "a"
        note: str = ""

    w = Walk()
    w.models(Contract, Tolerant, "sample")
    assert w.problems == [
        "Contract.status: enum differs: contract only ['b'], tolerant only []",
        "Contract.note: the contract allows null, the tolerant model does not",
        "Contract.extra: missing from tolerant Tolerant",
    ]
