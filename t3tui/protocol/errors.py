"""Typed RPC errors carried in `Fail` causes (§12)."""

from typing import Any, Literal

from pydantic import Field

from .base import ProtocolError, WireModel, type_name


class RpcError(WireModel):
    """Base of the typed errors; `_tag` names the error. A `cause` field may ride along."""

    tag_: str = Field(alias="_tag")
    message: str = ""
    cause: Any = None

    wire_optional = frozenset({"cause"})

    def describe(self) -> str:
        """Human text to show verbatim (message, then detail when present)."""
        return self.message or self.tag_


class DispatchCommandError(RpcError):
    """The command was rejected (guard, invariant, unknown thread, ...)."""

    tag_: Literal["OrchestrationV2DispatchCommandError"] = Field(
        "OrchestrationV2DispatchCommandError", alias="_tag"
    )
    command_id: str | None = None
    command_type: str | None = None
    detail: Any = None

    wire_optional = frozenset({"detail"})

    def describe(self) -> str:
        if self.detail in (None, ""):
            return self.message
        detail = self.detail if isinstance(self.detail, str) else repr(self.detail)
        return f"{self.message} ({detail})" if self.message else detail


class GetThreadProjectionError(RpcError):
    tag_: Literal["OrchestrationV2GetThreadProjectionError"] = Field(
        "OrchestrationV2GetThreadProjectionError", alias="_tag"
    )
    thread_id: str | None = None


class GetShellSnapshotError(RpcError):
    tag_: Literal["OrchestrationV2GetShellSnapshotError"] = Field(
        "OrchestrationV2GetShellSnapshotError", alias="_tag"
    )


class ThreadLaunchError(RpcError):
    tag_: Literal["OrchestrationV2ThreadLaunchError"] = Field(
        "OrchestrationV2ThreadLaunchError", alias="_tag"
    )
    command_id: str | None = None
    project_id: str | None = None


class EnvironmentAuthorizationError(RpcError):
    """The token lacks the scope this method needs."""

    tag_: Literal["EnvironmentAuthorizationError"] = Field(
        "EnvironmentAuthorizationError", alias="_tag"
    )
    required_scope: str | None = None


class UnknownRpcError(RpcError):
    """An error tag this client does not know; every key is kept."""


OrchestrationV2DispatchCommandError = DispatchCommandError
OrchestrationV2GetThreadProjectionError = GetThreadProjectionError
OrchestrationV2GetShellSnapshotError = GetShellSnapshotError
OrchestrationV2ThreadLaunchError = ThreadLaunchError

RPC_ERROR_TYPES: dict[str, type[RpcError]] = {
    cls.model_fields["tag_"].default: cls
    for cls in (
        DispatchCommandError,
        GetThreadProjectionError,
        GetShellSnapshotError,
        ThreadLaunchError,
        EnvironmentAuthorizationError,
    )
}


def decode_rpc_error(obj: Any) -> RpcError:
    """Decode the `error` of a `Fail` cause; an unknown `_tag` gives `UnknownRpcError`."""
    if not isinstance(obj, dict):
        raise ProtocolError(f"rpc error must be a JSON object, got {type_name(obj)}")
    tag = obj.get("_tag")
    if not isinstance(tag, str):
        raise ProtocolError("rpc error has no string _tag")
    return RPC_ERROR_TYPES.get(tag, UnknownRpcError).from_wire(obj)
