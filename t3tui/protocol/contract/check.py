"""Check one websocket conversation, frame by frame, against the strict contract models.

`WireCheck` is fed every text frame of one connection in order (`client(text)` for what the
client sent, `server(text)` for what the server sent). It pairs responses with their request
by id, so each Chunk value and Exit value is checked against its method's schema. Problems
are collected as one-line strings; `counts` says what was checked, so a test can also prove
that the check saw the shapes it is meant to cover.

`server_problems` holds only what the server got wrong: problems of client frames, and of
the answers to requests that were themselves malformed (a fuzz test's `"id": "abc"` echoed
back), are left out of it.
"""

from collections import Counter
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..base import ProtocolError, parse_json
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
        event = value["event"]
        payload = event.get("payload")
        if event.get("type") == "turn-item.updated" and isinstance(payload, dict):
            return f"event turn-item.updated {payload.get('type')}"
        return f"event {event.get('type')}"
    return str(kind) if kind is not None else "object"


class WireCheck:
    """The contract check of one connection's frames (see the module docstring)."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.server_problems: list[str] = []
        self.counts: Counter[str] = Counter()
        self._methods: dict[str, str] = {}
        self._well_formed: set[str] = set()  # ids of requests that passed the check
        self._server = True  # whether the frame being checked answers a well-formed request

    def _check(self, what: str, schema: Any, obj: Any, *, server: bool = False) -> bool:
        self.counts[what] += 1
        found = [f"{what}: {problem}" for problem in violations(schema, obj)]
        self.problems += found
        if server:
            self.server_problems += found
        return not found

    def _messages(self, text: str, side: str) -> list[Any]:
        try:
            parsed = parse_json(text)
        except ProtocolError as exc:
            self.problems.append(f"{side} frame is not JSON: {exc}")
            if side == "server":
                self.server_problems.append(f"{side} frame is not JSON: {exc}")
            return []
        return parsed if isinstance(parsed, list) else [parsed]

    def client(self, text: str) -> None:
        for message in self._messages(text, "client"):
            tag = message.get("_tag") if isinstance(message, dict) else None
            ok = self._check(f"client {tag}", ClientMessage, message)
            if tag == "Request":
                method = str(message.get("tag"))
                request_id = str(message.get("id"))
                self._methods[request_id] = method
                spec = _STREAMS.get(method) or _UNARY.get(method)
                if spec is not None:
                    ok = self._check(f"payload {method}", spec[0], message.get("payload")) and ok
                if ok:
                    self._well_formed.add(request_id)

    def server(self, text: str) -> None:
        for message in self._messages(text, "server"):
            tag = message.get("_tag") if isinstance(message, dict) else None
            request_id = message.get("requestId") if isinstance(message, dict) else None
            self._server = request_id is None or str(request_id) in self._well_formed
            self._check(f"server {tag}", ServerMessage, message, server=self._server)
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
            self._check(f"{method} {_label(value)}", spec[1], value, server=self._server)

    def _exit(self, message: dict[str, Any]) -> None:
        method = self._methods.get(str(message.get("requestId"))) or "?"
        exit_ = message.get("exit")
        if not isinstance(exit_, dict):
            return
        if exit_.get("_tag") == "Failure":
            for cause in exit_.get("cause") or []:
                if isinstance(cause, dict) and cause.get("_tag") == "Fail":
                    self._check(f"{method} Fail", RpcError, cause.get("error"), server=self._server)
            return
        if method in _STREAMS:
            self.counts[f"{method} Exit"] += 1
            if "value" not in exit_ or exit_["value"] is not None:
                problem = f"{method} Exit: a stream's success value must be null"
                self.problems.append(problem)
                if self._server:
                    self.server_problems.append(problem)
        elif method in _UNARY:
            self._check(f"{method} result", _UNARY[method][1], exit_.get("value"),
                        server=self._server)
