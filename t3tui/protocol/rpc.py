"""Effect RPC JSON envelope (§3): client and server messages, frame codec."""

from typing import Annotated, Any, Literal

from pydantic import Field

from .base import ProtocolError, WireModel, dumps, parse_json, type_name
from .errors import RpcError, decode_rpc_error


class Request(WireModel):
    """Start a unary call or a stream. `payload` is any JSON; the method decides its shape."""

    tag_: Literal["Request"] = Field("Request", alias="_tag")
    id: str
    tag: str
    payload: Any = Field(default_factory=dict)
    headers: list[tuple[str, str]] = Field(default_factory=list)
    trace_id: str | None = None
    span_id: str | None = None
    sampled: bool | None = None

    wire_optional = frozenset({"trace_id", "span_id", "sampled"})


class Ack(WireModel):
    """Sent after every `Chunk` of a stream."""

    tag_: Literal["Ack"] = Field("Ack", alias="_tag")
    request_id: str


class Interrupt(WireModel):
    """Cancel a call or a stream."""

    tag_: Literal["Interrupt"] = Field("Interrupt", alias="_tag")
    request_id: str


class Ping(WireModel):
    """Keepalive."""

    tag_: Literal["Ping"] = Field("Ping", alias="_tag")


class Eof(WireModel):
    """No more input from the client."""

    tag_: Literal["Eof"] = Field("Eof", alias="_tag")


class Chunk(WireModel):
    """Stream items, still raw: decode them with the method's item decoder."""

    tag_: Literal["Chunk"] = Field("Chunk", alias="_tag")
    request_id: str
    values: list[Any]


class Fail(WireModel):
    """A typed error cause; `errors.decode_rpc_error(fail.error)` gives the typed model."""

    tag_: Literal["Fail"] = Field("Fail", alias="_tag")
    error: dict[str, Any]

    @property
    def typed(self) -> RpcError:
        """The error as a typed model (raises `ProtocolError` when it has no `_tag`)."""
        return decode_rpc_error(self.error)


class Die(WireModel):
    """An unexpected failure (e.g. a payload that failed schema decoding)."""

    tag_: Literal["Die"] = Field("Die", alias="_tag")
    defect: Any = None


class InterruptCause(WireModel):
    """The call was interrupted; `fiberId` may be absent."""

    tag_: Literal["Interrupt"] = Field("Interrupt", alias="_tag")
    fiber_id: int | None = None

    wire_optional = frozenset({"fiber_id"})


Cause = Annotated[Fail | Die | InterruptCause, Field(discriminator="tag_")]


class ExitSuccess(WireModel):
    """A successful result; for a finished stream `value` is null or absent."""

    tag_: Literal["Success"] = Field("Success", alias="_tag")
    value: Any = None


class ExitFailure(WireModel):
    """A failed call: one or more causes."""

    tag_: Literal["Failure"] = Field("Failure", alias="_tag")
    cause: list[Cause]


ExitEncoded = Annotated[ExitSuccess | ExitFailure, Field(discriminator="tag_")]


class Exit(WireModel):
    """The last message for a request id."""

    tag_: Literal["Exit"] = Field("Exit", alias="_tag")
    request_id: str
    exit: ExitEncoded

    @classmethod
    def success(cls, request_id: str, value: Any = None) -> "Exit":
        """A success exit carrying `value`."""
        return cls(request_id=request_id, exit=ExitSuccess(value=value))

    @classmethod
    def failure(cls, request_id: str, *causes: Fail | Die | InterruptCause) -> "Exit":
        """A failure exit with the given causes."""
        return cls(request_id=request_id, exit=ExitFailure(cause=list(causes)))

    @property
    def ok(self) -> bool:
        """True for a `Success` exit."""
        return isinstance(self.exit, ExitSuccess)


class Defect(WireModel):
    """Connection-level protocol failure, with no request id."""

    tag_: Literal["Defect"] = Field("Defect", alias="_tag")
    defect: Any = None


class Pong(WireModel):
    """Answer to `Ping`."""

    tag_: Literal["Pong"] = Field("Pong", alias="_tag")


ClientMessage = Request | Ack | Interrupt | Ping | Eof
ServerMessage = Chunk | Exit | Defect | Pong

_CLIENT: dict[str, type[WireModel]] = {
    "Request": Request,
    "Ack": Ack,
    "Interrupt": Interrupt,
    "Ping": Ping,
    "Eof": Eof,
}
_SERVER: dict[str, type[WireModel]] = {"Chunk": Chunk, "Exit": Exit, "Defect": Defect, "Pong": Pong}


def _decode_one(obj: Any, table: dict[str, type[WireModel]], side: str) -> Any:
    if not isinstance(obj, dict):
        raise ProtocolError(f"{side} message must be a JSON object, got {type_name(obj)}")
    tag = obj.get("_tag")
    if not isinstance(tag, str):
        raise ProtocolError(f"{side} message has no string _tag")
    cls = table.get(tag)
    if cls is None:
        raise ProtocolError(f"unknown {side} message _tag {tag!r}")
    return cls.from_wire(obj)


def decode_client_message(obj: Any) -> ClientMessage:
    """Decode one already-parsed client message."""
    return _decode_one(obj, _CLIENT, "client")


def decode_server_message(obj: Any) -> ServerMessage:
    """Decode one already-parsed server message."""
    return _decode_one(obj, _SERVER, "server")


def _messages(text: str | bytes) -> list[Any]:
    parsed = parse_json(text)
    return parsed if isinstance(parsed, list) else [parsed]


def decode_client_frame(text: str | bytes) -> list[ClientMessage]:
    """Decode a text frame holding one client message or an array of them."""
    return [decode_client_message(obj) for obj in _messages(text)]


def decode_server_frame(text: str | bytes) -> list[ServerMessage]:
    """Decode a text frame holding one server message or an array of them."""
    return [decode_server_message(obj) for obj in _messages(text)]


def encode_message(msg: ClientMessage | ServerMessage) -> str:
    """Encode one message as a compact JSON text frame."""
    return dumps(msg.to_wire())
