"""What a provider's own session record says about its turns (pure: fed parsed lines).

The file I/O lives in `t3tui.proof`; this module only turns parsed JSON lines into turn facts.
Codex rollouts are replayed the way Codex's own `RolloutTurnLifecycleTracker` does
(`task_started` opens a turn, `task_complete` / `turn_complete` finishes it, `turn_aborted`
ends it, `thread_rolled_back` drops finished turns, a user message without `task_started`
opens an implicit turn). Claude Code transcripts (an unofficial format) are followed by time:
a user prompt opens a turn, an `end_turn` assistant line or `turn_duration` ends it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from t3tui.model.wire import ts

CODEX: Final = "codex"
CLAUDE: Final = "claudeAgent"
RUNNING: Final = "running"
COMPLETED: Final = "completed"
ABORTED: Final = "aborted"
ERRORED: Final = "errored"
TERMINAL: Final = frozenset({COMPLETED, ABORTED, ERRORED})
MESSAGE_KEEP: Final = 4096  # the text T3 never received, kept in memory for forwarding
EXCERPT: Final = 120        # what a finding or report may show of it
CLAUDE_MATCH_SLACK: Final = timedelta(seconds=5)

# record states
FOUND: Final = "found"
MISSING: Final = "missing"
UNREADABLE: Final = "unreadable"


@dataclass(frozen=True)
class NativeRef:
    """A provider-side id as T3 holds it (`{driver, nativeId, strength}` or a bare string)."""

    driver: str | None
    native_id: str
    strength: str | None = None


def native_ref(value: Any, driver: str | None = None) -> NativeRef | None:
    """Read a native ref in any shape T3 has sent: a typed ref (`driver`, or older builds'
    `provider`), or a bare string. None when there is no usable id."""
    if isinstance(value, str):
        return NativeRef(driver, value) if value.strip() else None
    if not isinstance(value, dict):
        return None
    native = value.get("nativeId")
    if not isinstance(native, str) or not native.strip():
        return None
    kind = value.get("driver") if isinstance(value.get("driver"), str) else value.get("provider")
    strength = value.get("strength") if isinstance(value.get("strength"), str) else None
    return NativeRef(kind if isinstance(kind, str) else driver, native, strength)


def excerpt(text: str | None, limit: int = EXCERPT) -> str | None:
    """One line of at most `limit` characters: what a report may quote of agent text."""
    if text is None:
        return None
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass(frozen=True)
class RecordTurn:
    """One turn as the provider recorded it."""

    turn_id: str | None          # None: an implicit turn (old rollouts) or a Claude turn
    status: str                  # running | completed | aborted | errored
    started_at: datetime | None
    ended_at: datetime | None
    marker: str | None           # the line that ended it: task_complete, turn_aborted, ...
    line: int                    # line number (1-based) of that marker, else of the start
    last_message: str | None     # the last agent message (at most MESSAGE_KEEP chars)
    reason: str | None = None    # abort reason or error

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


@dataclass(frozen=True)
class ProviderRecord:
    """What t3tui found of one native thread's record. `state` is `found`, `missing` or
    `unreadable`; only a found record can support a verdict."""

    driver: str
    native_id: str
    state: str
    path: str | None = None
    detail: str | None = None
    turns: tuple[RecordTurn, ...] = ()
    lines: int = 0
    skipped: int = 0             # malformed or truncated lines, never a crash
    last_line_at: datetime | None = None

    def turn_for(self, native_turn: str | None, started_at: datetime | None) -> RecordTurn | None:
        """The record's turn for T3's provider turn: by id when both carry one (Codex), else
        by time: the turn whose start is nearest T3's (none more than a little before it)."""
        if native_turn is not None:
            for turn in reversed(self.turns):
                if turn.turn_id == native_turn:
                    return turn
            if any(t.turn_id for t in self.turns):
                return None  # ids are recorded and none is this turn's: not this turn
        if started_at is None:
            return None
        near = [t for t in self.turns if t.started_at is not None
                and t.started_at >= started_at - CLAUDE_MATCH_SLACK]
        # the provider records the prompt moments after T3 starts the turn: the nearest start
        return min(near, key=lambda t: abs((t.started_at - started_at).total_seconds()),
                   default=None)


@dataclass
class _Open:
    turn_id: str | None
    started_at: datetime | None
    line: int
    last_message: str | None = None


def _clip(text: Any) -> str | None:
    return text[:MESSAGE_KEEP] if isinstance(text, str) else None


def _unix(value: Any) -> datetime | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e11:
        return datetime.fromtimestamp(value, UTC)
    return None


@dataclass
class CodexTracker:
    """Replays a Codex rollout line by line (feed parsed JSON objects in file order)."""

    until: datetime | None = None       # ignore lines after this moment (post-mortem `--at`)
    session_id: str | None = None       # the first session_meta's payload.id
    turns: list[RecordTurn] = field(default_factory=list)
    _open: dict[int, _Open] = field(default_factory=dict)   # index in turns -> open state
    _current: int | None = None
    last_line_at: datetime | None = None

    def feed(self, line: dict[str, Any], number: int) -> bool:
        """Apply one line; False when it is not a rollout line (counted as skipped)."""
        kind = line.get("type")
        payload = line.get("payload")
        if not isinstance(kind, str) or not isinstance(payload, dict):
            return False
        at = ts(line.get("timestamp"))
        if self.until is not None and at is not None and at > self.until:
            return True
        self.last_line_at = at or self.last_line_at
        if kind == "session_meta":
            if self.session_id is None and isinstance(payload.get("id"), str):
                self.session_id = payload["id"]
        elif kind == "event_msg":
            self._event(payload, at, number)
        elif kind == "response_item" and payload.get("type") == "message" \
                and payload.get("role") == "user" and self._current is None:
            self._start(None, at, number)
        return True

    def _start(self, turn_id: str | None, at: datetime | None, number: int) -> None:
        self.turns.append(RecordTurn(turn_id, RUNNING, at, None, None, number, None))
        self._current = len(self.turns) - 1
        self._open[self._current] = _Open(turn_id, at, number)

    def _find(self, turn_id: Any) -> int | None:
        if isinstance(turn_id, str) and turn_id:
            for i in range(len(self.turns) - 1, -1, -1):
                if self.turns[i].turn_id == turn_id:
                    return i
            return None
        return self._current

    def _end(self, index: int | None, status: str, at: datetime | None, marker: str, number: int,
             message: Any = None, reason: str | None = None) -> None:
        if index is None:
            # a terminal marker for a turn whose start is not in the file: record it anyway
            self.turns.append(RecordTurn(None, RUNNING, None, None, None, number, None))
            index = len(self.turns) - 1
        opened = self._open.pop(index, None)
        text = _clip(message) if message is not None else (opened.last_message if opened else None)
        self.turns[index] = replace(self.turns[index], status=status, ended_at=at, marker=marker,
                                    line=number, last_message=text, reason=reason)
        if self._current == index:
            self._current = None

    def _event(self, p: dict[str, Any], at: datetime | None, number: int) -> None:
        tag = p.get("type")
        turn_id = p.get("turn_id") if isinstance(p.get("turn_id"), str) else None
        if tag in ("task_started", "turn_started"):
            self._start(turn_id, _unix(p.get("started_at")) or at, number)
        elif tag in ("task_complete", "turn_complete"):
            error = p.get("error")
            status = ERRORED if error else COMPLETED
            why = None
            if isinstance(error, dict):
                info = error.get("codex_error_info")
                why = str(info if info is not None else error.get("message") or "error")[:200]
            self._end(self._find(turn_id), status, _unix(p.get("completed_at")) or at, tag, number,
                      p.get("last_agent_message"), why)
        elif tag == "turn_aborted":
            reason = p.get("reason")
            self._end(self._find(turn_id), ABORTED, _unix(p.get("completed_at")) or at, tag,
                      number, None, reason if isinstance(reason, str) else "aborted")
        elif tag == "error" and self._current is not None and p.get("affects_turn_status", True):
            message = p.get("message")
            self._end(self._current, ERRORED, at, "error", number, None,
                      message[:200] if isinstance(message, str) else "error")
        elif tag == "thread_rolled_back":
            n = p.get("num_turns")
            if isinstance(n, int) and n > 0:
                finished = [i for i, t in enumerate(self.turns) if t.terminal][-n:]
                self.turns = [t for i, t in enumerate(self.turns) if i not in finished]
                self._open = {}
                self._current = None
                for i, t in enumerate(self.turns):
                    if not t.terminal:
                        self._open[i] = _Open(t.turn_id, t.started_at, t.line)
                        self._current = i
        elif tag == "user_message" and self._current is None:
            self._start(None, at, number)
        elif tag == "agent_message":
            if self._current is None:
                self._start(None, at, number)
            self._open[self._current].last_message = _clip(p.get("message"))


def _claude_text(message: Any) -> tuple[str | None, bool]:
    """(text, is_tool_result) of a Claude message's content."""
    if not isinstance(message, dict):
        return None, False
    content = message.get("content")
    if isinstance(content, str):
        return content, False
    if not isinstance(content, list):
        return None, False
    texts, tool_result = [], False
    for block in content:
        if isinstance(block, dict):
            if block.get("type") == "tool_result":
                tool_result = True
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
    return ("\n".join(texts) if texts else None), tool_result


@dataclass
class ClaudeTracker:
    """Follows a Claude Code transcript's turns by time (feed parsed JSON objects in order)."""

    until: datetime | None = None
    session_id: str | None = None
    turns: list[RecordTurn] = field(default_factory=list)
    _current: int | None = None
    _last_message: str | None = None
    last_line_at: datetime | None = None

    def feed(self, line: dict[str, Any], number: int) -> bool:
        kind = line.get("type")
        if not isinstance(kind, str):
            return False
        at = ts(line.get("timestamp"))
        if self.until is not None and at is not None and at > self.until:
            return True
        self.last_line_at = at or self.last_line_at
        if self.session_id is None and isinstance(line.get("sessionId"), str):
            self.session_id = line["sessionId"]
        if line.get("isSidechain") is True:
            return True  # a subagent's own conversation inside the session
        if kind == "user":
            text, tool_result = _claude_text(line.get("message"))
            if tool_result or text is None:
                return True
            if text.startswith("[Request interrupted by user"):
                if self._current is not None:
                    self._end(ABORTED, at, "interrupted", number, "interrupted")
                return True
            self.turns.append(RecordTurn(None, RUNNING, at, None, None, number, None))
            self._current, self._last_message = len(self.turns) - 1, None
        elif kind == "assistant":
            message = line.get("message")
            text, _ = _claude_text(message)
            if text is not None:
                self._last_message = _clip(text)
            if self._current is None:
                return True
            if line.get("isApiErrorMessage") is True:
                self._end(ERRORED, at, "api_error", number, excerpt(text, 200) or "API error")
            elif isinstance(message, dict) and message.get("stop_reason") == "end_turn":
                self._end(COMPLETED, at, "end_turn", number)
        elif kind == "system" and line.get("subtype") == "turn_duration" and self._current is not None:
            self._end(COMPLETED, at, "turn_duration", number)
        return True

    def _end(self, status: str, at: datetime | None, marker: str, number: int,
             reason: str | None = None) -> None:
        assert self._current is not None
        i = self._current
        self.turns[i] = replace(self.turns[i], status=status, ended_at=at, marker=marker, line=number,
                                last_message=self._last_message, reason=reason)
        self._current = None


Tracker = CodexTracker | ClaudeTracker

# what T3's own protocol log says happened to a turn the provider finished
NEVER_FINISHED: Final = "provider-never-finished"
NEVER_RECEIVED: Final = "never-received"        # no NTIVE completion: the seed 004 path
NOT_PROJECTED: Final = "received-not-projected"  # NTIVE completion, no ORCH terminal turn
HEARD: Final = "heard"
T3_LOG_WORDS: Final = {
    NEVER_FINISHED: "the provider never finished the turn",
    NEVER_RECEIVED: "T3's protocol log has no NTIVE completion for it: T3 never received it",
    NOT_PROJECTED: "T3's protocol log shows the completion (NTIVE) but no ORCH update: "
                   "received and not projected",
    HEARD: "T3's protocol log shows it received and projected",
}


@dataclass(frozen=True)
class ProtocolLog:
    """What T3's provider protocol log (`events.<thread>.log`) holds for one thread."""

    state: str                                  # found | missing | unreadable
    path: str | None = None
    detail: str | None = None
    ntive_completed: frozenset[str] = frozenset()  # native turn ids T3 got a completion for
    orch_terminal: frozenset[str] = frozenset()    # T3 provider turn ids projected terminal
    lines: int = 0
    skipped: int = 0


def t3_log_verdict(log: ProtocolLog | None, turn: RecordTurn | None, native_turn: str | None,
                   provider_turn_id: str | None) -> str | None:
    """Which of three things happened, by T3's protocol log; None without a readable log."""
    if log is None or log.state != FOUND:
        return None
    if turn is None or not turn.terminal:
        return NEVER_FINISHED
    if native_turn is None or native_turn not in log.ntive_completed:
        return NEVER_RECEIVED
    if provider_turn_id is None or provider_turn_id not in log.orch_terminal:
        return NOT_PROJECTED
    return HEARD


def new_tracker(driver: str, until: datetime | None = None) -> Tracker:
    return ClaudeTracker(until=until) if driver == CLAUDE else CodexTracker(until=until)


__all__ = [
    "ABORTED",
    "CLAUDE",
    "CODEX",
    "COMPLETED",
    "ERRORED",
    "FOUND",
    "HEARD",
    "MISSING",
    "NEVER_FINISHED",
    "NEVER_RECEIVED",
    "NOT_PROJECTED",
    "RUNNING",
    "T3_LOG_WORDS",
    "TERMINAL",
    "UNREADABLE",
    "ClaudeTracker",
    "CodexTracker",
    "NativeRef",
    "ProtocolLog",
    "ProviderRecord",
    "RecordTurn",
    "Tracker",
    "excerpt",
    "native_ref",
    "new_tracker",
    "t3_log_verdict",
]
