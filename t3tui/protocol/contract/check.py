"""Check one websocket conversation, frame by frame, against the strict contract models.

`WireCheck` is fed every text frame of one connection in order (`client(text)` for what the
client sent, `server(text)` for what the server sent). It pairs responses with their request
by id, so each Chunk value and Exit value is checked against its method's schema. Problems
are collected as one-line strings; `counts` says what was checked, so a test can also prove
that the check saw the shapes it is meant to cover.
"""

from collections import Counter
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..base import parse_json
from .commands import Command, LaunchThreadInput
from .rpc import ClientMessage, RpcError, ServerMessage
from .scalars import NonEmpty, NonNegativeInt, Strict
from .streams import (
    ArchivedShellSnapshot,
    ArchivedShellStreamItem,
    DispatchCommandResult,
    ShellStreamItem,
    ThreadLaunchResult,
    ThreadProjection,
    ThreadStreamItem,
)

_MAX_ERRORS = 4


class SubscribeShellInput(Strict):
    after_sequence: NonNegativeInt = None
    request_completion_marker: bool = None


class SubscribeThreadInput(Strict):
    thread_id: NonEmpty
    after_sequence: NonNegativeInt = None
    request_completion_marker: bool = None


class GetThreadProjectionInput(Strict):
    thread_id: NonEmpty


class EmptyInput(Strict):
    pass


_STREAMS: dict[str, Any] = {
    "orchestration.subscribeShell": (SubscribeShellInput, ShellStreamItem),
    "orchestration.subscribeThread": (SubscribeThreadInput, ThreadStreamItem),
    "orchestration.subscribeArchivedShell": (EmptyInput, ArchivedShellStreamItem),
}
_UNARY: dict[str, Any] = {
    "orchestration.dispatchCommand": (Command, DispatchCommandResult),
    "orchestration.getThreadProjection": (GetThreadProjectionInput, ThreadProjection),
    "orchestration.launchThread": (LaunchThreadInput, ThreadLaunchResult),
    "orchestration.getArchivedShellSnapshot": (EmptyInput, ArchivedShellSnapshot),
}
_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(schema: Any) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(schema)
    if adapter is None:
        adapter = _ADAPTERS[schema] = TypeAdapter(schema)
    return adapter


def violations(schema: Any, obj: Any) -> list[str]:
    """Where `obj` breaks `schema` (a strict model or annotated union); empty when it fits."""
    try:
        _adapter(schema).validate_python(obj)
    except ValidationError as exc:
        out = []
        for err in exc.errors(include_url=False, include_input=False)[:_MAX_ERRORS]:
            where = ".".join(str(p) for p in err["loc"]) or "(root)"
            out.append(f"{where}: {err['msg']}")
        more = exc.error_count() - len(out)
        return out + ([f"(+{more} more)"] if more > 0 else [])
    return []


def _label(value: Any) -> str:
    """A short name for a stream item or value: `thread snapshot`, `event run.updated`."""
    if not isinstance(value, dict):
        return type(value).__name__
    kind = value.get("kind")
    if kind == "event" and isinstance(value.get("event"), dict):
        return f"event {value['event'].get('type')}"
    return str(kind) if kind is not None else "object"


class WireCheck:
    """The contract check of one connection's frames (see the module docstring)."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.counts: Counter[str] = Counter()
        self._methods: dict[str, str] = {}

    def _check(self, what: str, schema: Any, obj: Any) -> None:
        self.counts[what] += 1
        for problem in violations(schema, obj):
            self.problems.append(f"{what}: {problem}")

    def _messages(self, text: str, side: str) -> list[Any]:
        try:
            parsed = parse_json(text)
        except Exception as exc:
            self.problems.append(f"{side} frame is not JSON: {exc}")
            return []
        return parsed if isinstance(parsed, list) else [parsed]

    def client(self, text: str) -> None:
        for message in self._messages(text, "client"):
            self._check(f"client {message.get('_tag') if isinstance(message, dict) else '?'}",
                        ClientMessage, message)
            if isinstance(message, dict) and message.get("_tag") == "Request":
                method = str(message.get("tag"))
                self._methods[str(message.get("id"))] = method
                spec = _STREAMS.get(method) or _UNARY.get(method)
                if spec is not None:
                    self._check(f"payload {method}", spec[0], message.get("payload"))

    def server(self, text: str) -> None:
        for message in self._messages(text, "server"):
            tag = message.get("_tag") if isinstance(message, dict) else None
            self._check(f"server {tag}", ServerMessage, message)
            if tag == "Chunk":
                self._chunk(message)
            elif tag == "Exit":
                self._exit(message)

    def _chunk(self, message: dict[str, Any]) -> None:
        method = self._methods.get(str(message.get("requestId")))
        spec = _STREAMS.get(method or "")
        if spec is None:
            return
        for value in message.get("values") or []:
            self._check(f"{method} {_label(value)}", spec[1], value)

    def _exit(self, message: dict[str, Any]) -> None:
        method = self._methods.get(str(message.get("requestId"))) or "?"
        exit_ = message.get("exit")
        if not isinstance(exit_, dict):
            return
        if exit_.get("_tag") == "Failure":
            for cause in exit_.get("cause") or []:
                if isinstance(cause, dict) and cause.get("_tag") == "Fail":
                    self._check(f"{method} Fail", RpcError, cause.get("error"))
            return
        if method in _STREAMS:
            self.counts[f"{method} Exit"] += 1
            if "value" not in exit_ or exit_["value"] is not None:
                self.problems.append(f"{method} Exit: a stream's success value must be null")
        elif method in _UNARY:
            self._check(f"{method} result", _UNARY[method][1], exit_.get("value"))
