"""Replaying a recording: the supervisor as it was at any moment of the replay clock.

`Replay.seek(t)` applies, in file order, every line recorded at or before `t`, exactly as the
client's feed applied them live: stream chunks are decoded, items at or below a stream's
cursor dropped, the rest handed to the sink; a closed connection marks the sink stale; a
check-in note records the check-in (its deadline exists only on the client side); a provider
record or protocol log note hands the supervisor what the proof layer found then. Detectors
then run at `now = t`, so a finding appears on the replay clock when it appeared live.
Seeking backwards starts again from the first line (a new sink from `new_sink`).

Besides the sink's state it keeps what the frames say about the client itself: the
commands sent with their outcome, and the connection's ups and downs (`log`).
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from t3tui.client.connection import failure_from_exit
from t3tui.client.items import is_duplicate, is_marker
from t3tui.client.recording import Recording
from t3tui.client.state import (
    Connecting,
    ConnectionState,
    Failed,
    Live,
    Reconnecting,
    Stale,
    Syncing,
)
from t3tui.model.checkin import CheckIn
from t3tui.model.proof_wire import log_from_wire, record_from_wire
from t3tui.model.provider_record import ProviderRecord
from t3tui.model.wire import keep_wire
from t3tui.protocol import ProtocolError
from t3tui.protocol.methods import DISPATCH_COMMAND, SUBSCRIBE_SHELL, SUBSCRIBE_THREAD
from t3tui.protocol.rpc import Chunk, Exit, ExitFailure, decode_server_message
from t3tui.protocol.stream import decode_shell_item, decode_thread_item

log = logging.getLogger(__name__)

SHELL = "\x00shell"  # the shell stream's key among thread ids


def utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


@dataclass(frozen=True)
class SentCommand:
    """A command the client dispatched, and what the server answered."""

    at: float
    command: dict[str, Any]
    outcome: str = "pending"  # pending | accepted | rejected | unknown
    outcome_at: float | None = None
    sequence: int | None = None
    message: str = ""

    @property
    def type(self) -> str:
        return str(self.command.get("type", "?"))

    @property
    def thread_id(self) -> str | None:
        value = self.command.get("threadId")
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class ConnectionEvent:
    at: float
    opened: bool
    detail: str


@dataclass
class ReplayLog:
    """What the client did and saw, in order: commands, check-ins, connection changes, the
    provider records the proof layer read (moment, thread id, record), policy decisions."""

    commands: list[SentCommand] = field(default_factory=list)
    checkins: list[tuple[float, CheckIn]] = field(default_factory=list)
    connections: list[ConnectionEvent] = field(default_factory=list)
    records: list[tuple[float, str, ProviderRecord]] = field(default_factory=list)
    # the policies' journal records (t3tui.policy.journal.Decision.record), as noted
    policies: list[tuple[float, dict[str, Any]]] = field(default_factory=list)


class Replay:
    """A recording applied up to `clock` (epoch seconds); see the module docstring.

    `new_sink()` makes an empty sink (a `Supervisor`, or the app's tee) for each start from
    the beginning. `on_item(thread_id | None, item, at)` sees every applied item (the report's
    timeline reads them).
    """

    def __init__(self, recording: Recording, new_sink: Callable[[], Any],
                 on_item: Callable[[str | None, Any, float], None] | None = None) -> None:
        self.recording = recording
        self._new_sink = new_sink
        self._on_item = on_item
        self._restart()

    def _restart(self) -> None:
        self.sink = self._new_sink()
        self.index = 0  # the next line to apply
        self.clock = self.recording.start
        self.log = ReplayLog()
        self.connection: ConnectionState = Connecting()
        self._streams: dict[str, str] = {}  # request id -> SHELL or thread id
        self._synced: set[str] = set()
        self._refused: set[str] = set()
        self._dispatches: dict[str, int] = {}  # request id -> index in log.commands
        self._ever_live = False
        self._attempt = 0

    # -- the clock --

    @property
    def start(self) -> float:
        return self.recording.start

    @property
    def end(self) -> float:
        return self.recording.end

    @property
    def now(self) -> datetime:
        return utc(self.clock)

    def next_time(self) -> float | None:
        """When the next line was recorded (None at the end)."""
        times = self.recording.times
        return times[self.index] if self.index < len(times) else None

    def seek(self, at: float) -> int:
        """Move the clock to `at` (not before the start; past the end is the time after the
        last line, as when a report on a recording still growing runs "now")."""
        at = max(at, self.start)
        if at < self.clock:
            self._restart()
        stop = bisect.bisect_right(self.recording.times, at)
        applied = 0
        while self.index < stop:
            self._apply_line(self.index)
            self.index += 1
            applied += 1
        self.clock = at
        return applied

    def step(self) -> float | None:
        """Apply the next line (with any recorded at the same moment); its time, or None."""
        at = self.next_time()
        if at is not None:
            self.seek(at)
        return at

    # -- one line --

    def _apply_line(self, index: int) -> None:
        line = self.recording.parse(index)
        at = self.recording.times[index]
        if "in" in line:
            frame = line["in"]
            for raw in frame if isinstance(frame, list) else [frame]:
                self._server_message(raw, at)
        elif "out" in line:
            self._client_message(line["out"], at)
        elif "connection" in line:
            self._connection(line, at)
        elif line.get("note") == "checkin":
            self._checkin(line.get("checkin"), at)
        elif line.get("note") in ("providerRecord", "protocolLog"):
            self._proof(line["note"], line.get(line["note"]), at)
        elif line.get("note") == "policy" and isinstance(line.get("policy"), dict):
            self.log.policies.append((at, line["policy"]))

    def _connection(self, line: dict[str, Any], at: float) -> None:
        if line.get("connection") == "open":
            self._streams.clear()
            self._synced.clear()
            self._refused.clear()
            self.connection = Stale() if self._ever_live else Syncing()
            self.log.connections.append(ConnectionEvent(at, True, "connected"))
            return
        reason = str(line.get("reason") or "connection closed")
        stopped = reason == "stopped by client"
        if not stopped:  # the recorder stopping is not the data going stale
            self.sink.mark_stale()
        for index in self._dispatches.values():
            self.log.commands[index] = replace(
                self.log.commands[index], outcome="unknown", outcome_at=at,
                message=f"the connection ended first: {reason}")
        self._dispatches.clear()
        self._attempt = 1 if isinstance(self.connection, Live) else self._attempt + 1
        if stopped:  # the recorder ended here, not the server
            self.connection = Failed("the recording ends here (the client stopped)")
        else:
            self.connection = Reconnecting(self._attempt, reason)
        self.log.connections.append(ConnectionEvent(at, False, reason))

    def _client_message(self, raw: Any, at: float) -> None:
        if not isinstance(raw, dict):
            return
        tag, request_id = raw.get("_tag"), str(raw.get("id") or raw.get("requestId") or "")
        if tag == "Request":
            method, payload = raw.get("tag"), raw.get("payload")
            payload = payload if isinstance(payload, dict) else {}
            if method == SUBSCRIBE_SHELL:
                self._streams[request_id] = SHELL
            elif method == SUBSCRIBE_THREAD and isinstance(payload.get("threadId"), str):
                self._streams[request_id] = payload["threadId"]
            elif method == DISPATCH_COMMAND:
                self._dispatches[request_id] = len(self.log.commands)
                self.log.commands.append(SentCommand(at, payload))
        elif tag == "Interrupt":
            stream = self._streams.pop(request_id, None)
            if stream is not None and stream != SHELL:
                self._synced.discard(stream)
                self.sink.forget_thread(stream)

    def _server_message(self, raw: Any, at: float) -> None:
        try:
            message = decode_server_message(raw)
        except ProtocolError:
            return
        if isinstance(message, Chunk):
            stream = self._streams.get(message.request_id)
            if stream is not None:
                for value in message.values:
                    self._item(stream, value, at)
                self._check_live()
        elif isinstance(message, Exit):
            self._exit(message, at)

    def _exit(self, message: Exit, at: float) -> None:
        index = self._dispatches.pop(message.request_id, None)
        if index is not None:
            sent = self.log.commands[index]
            if isinstance(message.exit, ExitFailure):
                failure = failure_from_exit(message.exit)
                self.log.commands[index] = replace(sent, outcome="rejected", outcome_at=at,
                                                   message=str(failure))
                self._checkin_refused(sent, str(failure))
            else:
                value = message.exit.value
                seq = value.get("sequence") if isinstance(value, dict) else None
                self.log.commands[index] = replace(
                    sent, outcome="accepted", outcome_at=at,
                    sequence=seq if isinstance(seq, int) else None)
            return
        stream = self._streams.pop(message.request_id, None)
        if stream is not None:
            self._synced.discard(stream)
            if isinstance(message.exit, ExitFailure):
                self._refused.add(stream)  # e.g. an unknown thread: not asked again
            self._check_live()

    def _item(self, stream: str, raw: Any, at: float) -> None:
        shell = stream == SHELL
        if shell and _shell_snapshot(raw):
            # The model reads wire dicts and skips rows without an id; validating ten
            # thousand rows with the protocol models would double the cost of opening.
            item: Any = raw
        else:
            try:
                item = keep_wire((decode_shell_item if shell else decode_thread_item)(raw), raw)
            except ProtocolError:
                return  # live, the feed skipped it too
        cursor = self.sink.cursor_shell if shell else self.sink.cursor_thread(stream)
        if is_duplicate(item, cursor):
            return
        if is_marker(item):
            self._synced.add(stream)
        try:
            if shell:
                self.sink.apply_shell(item)
            else:
                self.sink.apply_thread(stream, item)
        except ValueError:
            return  # the model refused it live as well
        if self._on_item is not None:
            self._on_item(None if shell else stream, raw, at)

    def _check_live(self) -> None:
        """Live as the session was: the shell and every thread stream it wants synchronized
        (a thread the server refused is not waited for)."""
        if not isinstance(self.connection, Syncing | Stale) or SHELL not in self._synced:
            return
        subscribed = set(self._streams.values())
        wanted = set(self.sink.threads_of_interest()) - self._refused
        if subscribed <= self._synced and wanted <= subscribed:
            self.connection = Live()
            self._ever_live = True

    def _checkin(self, data: Any, at: float) -> None:
        if not isinstance(data, dict):
            return
        try:
            checkin = CheckIn(
                thread_id=str(data["threadId"]), text=str(data.get("text", "")),
                expect=str(data.get("expect", "")),
                sent_at=_when(data["sentAt"]), deadline=_when(data["deadline"]),
                message_id=str(data.get("messageId", "")),
                command_id=str(data.get("commandId", "")))
        except (KeyError, ValueError, TypeError):
            return
        self.sink.record_checkin(checkin)
        self.log.checkins.append((at, checkin))

    def _proof(self, kind: str, data: Any, at: float) -> None:
        """What the proof layer found, as the live supervisor got it (None: forgotten)."""
        if not isinstance(data, dict) or not isinstance(data.get("threadId"), str):
            return
        thread_id = data["threadId"]
        if kind == "providerRecord":
            record = record_from_wire(data.get("record"))
            self.sink.set_provider_record(thread_id, record)
            if record is not None:
                self.log.records.append((at, thread_id, record))
        else:
            self.sink.set_protocol_log(thread_id, log_from_wire(data.get("log")))

    def _checkin_refused(self, sent: SentCommand, reason: str) -> None:
        command_id = sent.command.get("commandId")
        for _at, checkin in self.log.checkins:
            if checkin.command_id == command_id:
                self.sink.checkin_rejected(checkin.thread_id, reason)


def _shell_snapshot(raw: Any) -> bool:
    """A shell snapshot in the shape the model needs (its rows are checked there)."""
    if not isinstance(raw, dict) or raw.get("kind") != "snapshot":
        return False
    snapshot = raw.get("snapshot")
    sequence = snapshot.get("snapshotSequence") if isinstance(snapshot, dict) else None
    return isinstance(sequence, int) and not isinstance(sequence, bool) and isinstance(
        snapshot.get("threads", []), list)


def _when(value: Any) -> datetime:
    at = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)
