"""Strict models of the Effect RPC envelope (protocol §3) and the V2 RPC errors."""

from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, StrictStr

from .scalars import OMIT, IntString, NonEmpty, Strict


class _Tagged(Strict):
    tag_: Any = Field(alias="_tag")


class Request(_Tagged):
    tag_: Literal["Request"] = Field(alias="_tag")
    id: IntString
    tag: NonEmpty
    payload: Any
    headers: list[tuple[StrictStr, StrictStr]]
    trace_id: StrictStr = OMIT
    span_id: StrictStr = OMIT
    sampled: StrictBool = OMIT


class Ack(_Tagged):
    tag_: Literal["Ack"] = Field(alias="_tag")
    request_id: IntString


class Interrupt(_Tagged):
    tag_: Literal["Interrupt"] = Field(alias="_tag")
    request_id: IntString


class Ping(_Tagged):
    tag_: Literal["Ping"] = Field(alias="_tag")


class Eof(_Tagged):
    tag_: Literal["Eof"] = Field(alias="_tag")


ClientMessage = Annotated[Request | Ack | Interrupt | Ping | Eof, Field(discriminator="tag_")]


class Chunk(_Tagged):
    tag_: Literal["Chunk"] = Field(alias="_tag")
    request_id: IntString
    values: Annotated[list[Any], Field(min_length=1)]


class Fail(_Tagged):
    tag_: Literal["Fail"] = Field(alias="_tag")
    error: dict[str, Any]


class Die(_Tagged):
    tag_: Literal["Die"] = Field(alias="_tag")
    defect: Any


class InterruptCause(_Tagged):
    tag_: Literal["Interrupt"] = Field(alias="_tag")
    fiber_id: Any


class ExitSuccess(_Tagged):
    tag_: Literal["Success"] = Field(alias="_tag")
    value: Any  # required: an Exit without `value` fails upstream's codec


class ExitFailure(_Tagged):
    tag_: Literal["Failure"] = Field(alias="_tag")
    cause: list[Annotated[Fail | Die | InterruptCause, Field(discriminator="tag_")]]


class Exit(_Tagged):
    tag_: Literal["Exit"] = Field(alias="_tag")
    request_id: IntString
    exit: Annotated[ExitSuccess | ExitFailure, Field(discriminator="tag_")]


class Defect(_Tagged):
    tag_: Literal["Defect"] = Field(alias="_tag")
    defect: Any


class Pong(_Tagged):
    tag_: Literal["Pong"] = Field(alias="_tag")


ServerMessage = Annotated[Chunk | Exit | Defect | Pong, Field(discriminator="tag_")]


class DispatchCommandError(_Tagged):
    tag_: Literal["OrchestrationV2DispatchCommandError"] = Field(alias="_tag")
    command_id: NonEmpty
    command_type: StrictStr
    message: StrictStr
    detail: StrictStr = OMIT
    cause: Any = OMIT


class GetThreadProjectionError(_Tagged):
    tag_: Literal["OrchestrationV2GetThreadProjectionError"] = Field(alias="_tag")
    thread_id: NonEmpty
    message: StrictStr
    cause: Any = OMIT


class GetShellSnapshotError(_Tagged):
    tag_: Literal["OrchestrationV2GetShellSnapshotError"] = Field(alias="_tag")
    message: StrictStr
    cause: Any = OMIT


class ThreadLaunchError(_Tagged):
    tag_: Literal["OrchestrationV2ThreadLaunchError"] = Field(alias="_tag")
    command_id: NonEmpty
    project_id: NonEmpty
    message: StrictStr
    cause: Any = OMIT


class EnvironmentAuthorizationError(_Tagged):
    """Not in the V2 contract: the auth layer's error (protocol §3.4); kept loose."""

    model_config = {"extra": "allow"}
    tag_: Literal["EnvironmentAuthorizationError"] = Field(alias="_tag")
    message: StrictStr = OMIT


RpcError = Annotated[
    DispatchCommandError
    | GetThreadProjectionError
    | GetShellSnapshotError
    | ThreadLaunchError
    | EnvironmentAuthorizationError,
    Field(discriminator="tag_"),
]
