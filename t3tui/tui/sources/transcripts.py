"""Transcripts: the messages, runs and request prompts of each subscribed thread.

The model exposes rows (states, findings), not conversations. The detail pane and the
subagent view need the conversation, so the source passes every thread item through
`TranscriptStore.apply` right after the supervisor; like the model, a snapshot replaces a
thread's transcript and an event upserts by id. Only decoded protocol items come in here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from t3tui.protocol import ProtocolError
from t3tui.protocol.stream import ThreadEventItem, ThreadSnapshotItem, decode_thread_item

# Enough for the detail pane and a transcript's recent past; older messages stay on the
# server (or in the recording), and an open transcript loads them (`History`).
MAX_MESSAGES = 400


@dataclass(frozen=True)
class MessageLine:
    id: str
    role: str
    text: str
    created_at: datetime | None
    streaming: bool
    run_id: str | None


@dataclass(frozen=True)
class RunLine:
    id: str
    ordinal: int
    status: str
    requested_at: datetime | None
    started_at: datetime | None
    completed_at: datetime | None


@dataclass(frozen=True)
class RequestPrompt:
    """What an approval or question asks, from its turn item (prompt, options, questions)."""

    request_id: str
    kind: str
    prompt: str
    options: tuple[tuple[str, str], ...] = ()          # (decision, label)
    questions: tuple[tuple[str, str], ...] = ()        # (question id, question text)


@dataclass
class Transcript:
    messages: dict[str, MessageLine] = field(default_factory=dict)
    runs: dict[str, RunLine] = field(default_factory=dict)
    prompts: dict[str, RequestPrompt] = field(default_factory=dict)
    dropped: int = 0  # older messages let go (MAX_MESSAGES): the server still has them

    def with_older(self, older: dict[str, MessageLine]) -> Transcript:
        """This transcript with the messages it let go, from a read of the whole thread
        (`History.history`): only those before its first held message, and only while it
        let some go (a replay sent back in time holds them all again: never its future)."""
        if not self.dropped or not self.messages:
            return self
        first = _message_key(self.ordered_messages()[0])
        before = {i: m for i, m in older.items()
                  if i not in self.messages and _message_key(m) < first}
        return Transcript({**before, **self.messages}, self.runs, self.prompts)

    def latest_messages(self, n: int) -> list[MessageLine]:
        return self.ordered_messages()[-n:]

    def ordered_messages(self) -> list[MessageLine]:
        return sorted(self.messages.values(), key=_message_key)

    def ordered_runs(self) -> list[RunLine]:
        return sorted(self.runs.values(), key=lambda r: (r.ordinal, r.id))


def _message_key(m: MessageLine) -> tuple[str, str]:
    return (m.created_at.isoformat() if m.created_at else "", m.id)


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """Read a field of a decoded model, or of an unknown item kept as a dict."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _message(m: Any) -> MessageLine:
    return MessageLine(
        id=str(_get(m, "id")),
        role=str(_get(m, "role") or "?"),
        text=str(_get(m, "text") or ""),
        created_at=_get(m, "created_at"),
        streaming=bool(_get(m, "streaming")),
        run_id=_get(m, "run_id"),
    )


def _run(r: Any) -> RunLine:
    return RunLine(
        id=str(_get(r, "id")),
        ordinal=int(_get(r, "ordinal") or 0),
        status=str(_get(r, "status") or "?"),
        requested_at=_get(r, "requested_at"),
        started_at=_get(r, "started_at"),
        completed_at=_get(r, "completed_at"),
    )


def _prompt(item: Any) -> RequestPrompt | None:
    """An `approval_request` / `user_input_request` turn item as a prompt, else None."""
    kind = _get(item, "type")
    extra = getattr(item, "model_extra", None) or {}
    request_id = _get(item, "request_id") or extra.get("requestId")
    if kind not in ("approval_request", "user_input_request") or not request_id:
        return None
    if kind == "approval_request":
        raw_options = _get(item, "options") or extra.get("options") or []
        options = tuple(
            (str(_get(o, "decision")), str(_get(o, "label") or _get(o, "decision")))
            for o in raw_options
            if _get(o, "decision")
        )
        prompt = _get(item, "prompt") or extra.get("prompt") or _get(item, "title") or ""
        request_kind = _get(item, "request_kind") or extra.get("requestKind") or "approval"
        return RequestPrompt(str(request_id), str(request_kind), str(prompt), options=options)
    raw_questions = _get(item, "questions") or extra.get("questions") or []
    questions = tuple(
        (str(_get(q, "id")), str(_get(q, "question") or _get(q, "header") or ""))
        for q in raw_questions
        if _get(q, "id")
    )
    prompt = "\n".join(text for _, text in questions) or str(_get(item, "title") or "")
    return RequestPrompt(str(request_id), "user_input", prompt, questions=questions)


# the event types a transcript shows (see `TranscriptStore._event`)
SHOWN_EVENTS = frozenset({"message.updated", "run.created", "run.updated", "turn-item.updated"})


def _typed(item: dict[str, Any]) -> Any:
    """The typed item for a wire dict the transcript reads; None for the rest or bad input."""
    kind = item.get("kind")
    if kind == "event":
        event = item.get("event")
        if not isinstance(event, dict) or event.get("type") not in SHOWN_EVENTS:
            return None
    elif kind != "snapshot":
        return None
    try:
        return decode_thread_item(item)
    except ProtocolError:
        return None  # the supervisor took what it could; the transcript skips it


class HistoryUnavailable(Exception):
    """This source cannot read a thread's older messages; the message says why (one line)."""


@runtime_checkable
class History(Protocol):
    """A source that reads a thread's older messages on demand, for an open transcript: a
    live server (`getThreadProjection`), several of them (the thread's own), a replay (its
    recording up to the replay's moment). The screen reads once per opening and lets go
    when it closes; a live source keeps its reads for the session (`HistoryCache`)."""

    async def history(self, thread_id: str) -> dict[str, MessageLine]:
        """Every message of the thread by id (raises `ClientError` when the read fails,
        `HistoryUnavailable` when this source cannot read them)."""
        ...


HISTORY_THREADS = 4  # threads whose older messages are kept once read (the last opened)


class HistoryCache:
    """A live source's reads of whole threads (`History.history`), kept for the session for
    the last `HISTORY_THREADS` threads read: opening a long transcript again does not read
    the whole thread from the server again. A kept read is used only while it reaches the
    transcript's first held message: messages let go since it was read (the talk went on)
    may be missing from it, and it is read again. (A replay reads its own recording, at the
    replay's moment: nothing to keep.)"""

    def __init__(self, threads: int = HISTORY_THREADS) -> None:
        self._threads = threads
        self._reads: dict[str, dict[str, MessageLine]] = {}  # oldest first

    def get(self, thread_id: str, held: Transcript) -> dict[str, MessageLine] | None:
        read = self._reads.pop(thread_id, None)
        if read is None:
            return None
        first = held.ordered_messages()[:1]
        if first and first[0].id not in read:
            return None  # let go since: read again
        self._reads[thread_id] = read  # the last used, last let go
        return read

    def put(self, thread_id: str, read: dict[str, MessageLine]) -> None:
        self._reads.pop(thread_id, None)
        self._reads[thread_id] = read
        while len(self._reads) > self._threads:
            del self._reads[next(iter(self._reads))]


class TranscriptStore:
    """Per-thread transcripts, fed the same thread items as the supervisor. `bounded`: keep
    the latest MAX_MESSAGES of each (False: all, for a one-off read of a whole thread)."""

    def __init__(self, *, bounded: bool = True) -> None:
        self._threads: dict[str, Transcript] = {}
        self._bounded = bounded

    def get(self, thread_id: str) -> Transcript:
        return self._threads.get(thread_id) or Transcript()

    def forget(self, thread_id: str) -> None:
        self._threads.pop(thread_id, None)

    def apply(self, thread_id: str, item: Any) -> None:
        """A thread item, typed or as the wire dict (decoded here only when it is shown)."""
        if isinstance(item, dict):
            item = _typed(item)
        if isinstance(item, ThreadSnapshotItem):
            self._threads[thread_id] = self._from_projection(item.projection)
        elif isinstance(item, ThreadEventItem):
            self._event(thread_id, item.event.type, item.event.payload)

    @staticmethod
    def messages_of(projection: Any) -> dict[str, MessageLine]:
        """Every message of a projection (a snapshot's, or `getThreadProjection`'s)."""
        return {(line := _message(m)).id: line for m in _get(projection, "messages") or []}

    def _from_projection(self, projection: Any) -> Transcript:
        t = Transcript(self.messages_of(projection))
        for r in _get(projection, "runs") or []:
            run = _run(r)
            t.runs[run.id] = run
        for item in _get(projection, "turn_items") or []:
            if (prompt := _prompt(item)) is not None:
                t.prompts[prompt.request_id] = prompt
        self._trim(t)
        return t

    def _event(self, thread_id: str, etype: str, payload: Any) -> None:
        if etype == "message.updated":
            t = self._threads.setdefault(thread_id, Transcript())
            line = _message(payload)
            t.messages[line.id] = line
            self._trim(t)
        elif etype in ("run.created", "run.updated"):
            run = _run(payload)
            self._threads.setdefault(thread_id, Transcript()).runs[run.id] = run
        elif etype == "turn-item.updated" and (prompt := _prompt(payload)) is not None:
            self._threads.setdefault(thread_id, Transcript()).prompts[prompt.request_id] = prompt

    def _trim(self, t: Transcript) -> None:
        if self._bounded and len(t.messages) > MAX_MESSAGES:
            keep = t.ordered_messages()[-MAX_MESSAGES:]
            t.dropped += len(t.messages) - len(keep)
            t.messages = {m.id: m for m in keep}
