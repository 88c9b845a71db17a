"""Gathering a triage report from a recording: two passes over a `Replay`.

The first pass (`TriageRun.view_at`) finds the thread and its lineage at the report's moment.
The second replays from the start with a `TimelineTracker` on every applied item and checks
the lineage's rows on the replay clock: after every line, just before the next one (when the
gap is long enough for a dwell to run out) and at each check-in deadline, so a finding's
first moment is the one it had live (to the millisecond, by bisection inside a quiet gap).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import t3tui
from t3tui.client.errors import ClientError
from t3tui.client.recorder import Recorder
from t3tui.client.recording import Recording, read_recording
from t3tui.client.replay import Replay, SentCommand
from t3tui.client.secret import Target
from t3tui.client.session import Session
from t3tui.client.state import Failed
from t3tui.model import DetectorConfig, Supervisor, SupervisorView
from t3tui.model.checkin import CheckIn
from t3tui.model.detectors.proof import PROVIDER_NAMES
from t3tui.model.labels import FINDING_WORDS
from t3tui.model.report import (
    ActionDone,
    CheckInDone,
    Moment,
    TimelineTracker,
    TriageInput,
    lineage_ids,
)

QUIET_GAP_S = 0.25  # a gap this long between lines is checked just before its end
PRECISION_S = 0.001
# command type -> timeline kinds on its thread that show it took effect
EFFECTS = {"thread.settle": ("settle",), "thread.unsettle": ("unsettle",),
           "provider-session.detach": ("detach",), "run.interrupt": ("run",),
           "message.dispatch": ("message",), "runtime-request.respond": ("request",)}


def utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


class TriageRun:
    """Reports on one recording; `new_sink` defaults to a `Supervisor` with `config`."""

    def __init__(self, recording: Recording, config: DetectorConfig | None = None,
                 source: dict[str, Any] | None = None) -> None:
        self.recording = recording
        self.config = config or DetectorConfig()
        self.source = source or {"kind": "recording", "path": recording.path.name}

    def new_sink(self) -> Supervisor:
        return Supervisor(config=self.config)

    def view_at(self, at: float) -> SupervisorView:
        replay = Replay(self.recording, self.new_sink)
        replay.seek(at)
        return replay.sink.view(replay.now)

    def gather(self, thread_id: str, at: float) -> TriageInput:
        view = self.view_at(at)
        watched = lineage_ids(view, thread_id)
        tracker = TimelineTracker()
        replay = Replay(self.recording, self.new_sink, tracker.feed)
        scan = _Scan(replay, watched)
        scan.run(at)
        moments = (tracker.moments + scan.moments + _client_moments(replay)
                   + _record_moments(replay, watched))
        source = dict(self.source, **{"from": _iso(self.recording.start),
                                      "to": _iso(self.recording.end)})
        return TriageInput(
            thread_id=thread_id, view=view, moments=moments, server=self.recording.server,
            protocol_version=self.recording.header.get("protocolVersion"),
            t3tui_version=t3tui.__version__, source=source, flagged_at=scan.flagged_at,
            actions=_actions(replay, tracker.moments),
            checkins=scan.checkins_done())


def _iso(epoch: float) -> str:
    return utc(epoch).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Scan:
    """Walks the replay clock to `at`, noting when the watched rows' findings come and go
    and when check-ins reach a verdict."""

    def __init__(self, replay: Replay, watched: list[str]) -> None:
        self.replay = replay
        self.watched = watched
        self.present: dict[tuple[str, str, str], Any] = {}
        self.flagged_at: dict[tuple[str, str, str], float] = {}
        self.moments: list[Moment] = []
        self.verdicts: dict[str, tuple[CheckIn, Any]] = {}  # message id -> (check-in, verdict)
        self._last = replay.clock

    def run(self, at: float) -> None:
        replay = self.replay
        while True:
            nxt = replay.next_time()
            stop = at if nxt is None or nxt > at else nxt
            for deadline in sorted(c.deadline.timestamp() for _t, c in replay.log.checkins):
                if self._last < deadline < stop:
                    self.check(deadline)
            if stop - self._last > QUIET_GAP_S:
                self.check(stop - PRECISION_S)
            replay.seek(stop)
            self.check(stop, bisect=False)
            if nxt is None or nxt > at:
                return

    def check(self, t: float, *, bisect: bool = True) -> None:
        sink, lo = self.replay.sink, self._last
        for tid in self.watched:
            row = sink.row(tid, utc(t))
            found = {f.key: f for f in (row.findings if row else ())}
            for key, finding in found.items():
                if key not in self.present:
                    first = self._bisect(tid, key, lo, t) if bisect and t > lo else t
                    self.flagged_at.setdefault(key, first)
                    word = FINDING_WORDS.get(finding.kind, finding.kind)
                    self.moments.append(Moment(first, "finding", tid,
                                               f"⚑ {word} flagged: {finding.rule}",
                                               detail=finding.reason))
            for key in [k for k in self.present if k[1] == tid and k not in found]:
                self.moments.append(Moment(t, "cleared", tid, f"finding cleared: {key[2]}"))
                del self.present[key]
            self.present.update(found)
        self._verdicts(t)
        self._last = t

    def _bisect(self, tid: str, key: tuple[str, str, str], lo: float, hi: float) -> float:
        """The first moment in (lo, hi] the finding holds; the state is constant there."""
        sink = self.replay.sink
        while hi - lo > PRECISION_S:
            mid = (lo + hi) / 2
            row = sink.row(tid, utc(mid))
            if row is not None and any(f.key == key for f in row.findings):
                hi = mid
            else:
                lo = mid
        return hi

    def _verdicts(self, t: float) -> None:
        for _sent, checkin in self.replay.log.checkins:
            known = self.verdicts.get(checkin.message_id)
            if known is not None and known[1].verdict != "pending":
                continue
            verdict = self.replay.sink.checkin_verdict(checkin.thread_id, utc(t))
            if verdict is None:
                continue
            self.verdicts[checkin.message_id] = (checkin, verdict)
            if verdict.verdict == "unanswered":
                self.moments.append(Moment(
                    min(t, checkin.deadline.timestamp()), "deadline", checkin.thread_id,
                    f"check-in deadline passed without “{checkin.expect}”: unanswered"))
            elif verdict.verdict == "answered":
                when = verdict.answered_at.timestamp() if verdict.answered_at else t
                latency = f" in {verdict.latency_s:.3g} s" if verdict.latency_s is not None \
                    else ""
                self.moments.append(Moment(when, "verdict", checkin.thread_id,
                                           f"check-in answered{latency}"))
            elif verdict.verdict == "busy":
                self.moments.append(Moment(t, "verdict", checkin.thread_id,
                                           "check-in not delivered (busy)",
                                           detail=verdict.reason))

    def checkins_done(self) -> list[CheckInDone]:
        done = []
        for _sent, checkin in self.replay.log.checkins:
            _c, verdict = self.verdicts.get(checkin.message_id, (checkin, None))
            done.append(CheckInDone(
                checkin.thread_id, checkin.text, checkin.expect, checkin.sent_at,
                checkin.deadline, verdict.verdict if verdict else "pending",
                verdict.reason if verdict else "", verdict.latency_s if verdict else None))
        return done


def _client_moments(replay: Replay) -> list[Moment]:
    moments: list[Moment] = []
    checkin_commands = {c.command_id for _t, c in replay.log.checkins}
    for at, checkin in replay.log.checkins:
        wait = (checkin.deadline - checkin.sent_at).total_seconds()
        moments.append(Moment(at, "checkin", checkin.thread_id,
                              f"check-in sent, deadline in {wait:g} s", detail=checkin.text))
    for sent in replay.log.commands:
        if sent.command.get("commandId") in checkin_commands:
            text = f"command sent by t3tui: {sent.type} (the check-in)"
        else:
            text = f"command sent by t3tui: {sent.type}"
        moments.append(Moment(sent.at, "command", sent.thread_id, text))
        if sent.outcome_at is not None:
            outcome = {"accepted": "server accepted", "rejected": "server refused",
                       "unknown": "outcome unknown:"}.get(sent.outcome, sent.outcome)
            seq = f" (sequence {sent.sequence})" if sent.sequence is not None else ""
            moments.append(Moment(sent.outcome_at, "outcome", sent.thread_id,
                                  f"{outcome} {sent.type}{seq}", detail=sent.message))
    for event in replay.log.connections:
        if event.opened:
            moments.append(Moment(event.at, "connection", None, "connected"))
        elif event.detail == "stopped by client":
            moments.append(Moment(event.at, "connection", None, "the recording ends here"))
        else:
            moments.append(Moment(event.at, "connection", None, "connection lost",
                                  detail=event.detail))
    return moments


def _record_moments(replay: Replay, watched: list[str]) -> list[Moment]:
    """Each turn a provider's own record ended, once, at the moment it says: the line of the
    timeline T3 never showed when it never heard."""
    moments: list[Moment] = []
    seen: set[tuple[str, str, int]] = set()
    for _at, thread_id, record in replay.log.records:
        if thread_id not in watched:
            continue
        who = PROVIDER_NAMES.get(record.driver, record.driver)
        for turn in record.turns:
            key = (thread_id, record.native_id, turn.line)
            if not turn.terminal or turn.ended_at is None or key in seen:
                continue
            seen.add(key)
            moments.append(Moment(turn.ended_at.timestamp(), "record", thread_id,
                                  f"{who}'s own record: turn {turn.status} ({turn.marker}, "
                                  f"line {turn.line})", detail=turn.last_message or ""))
    return moments


def _actions(replay: Replay, tracked: list[Moment]) -> list[ActionDone]:
    """Every command sent, each marked with the policy that sent it; and the policies'
    decisions that sent nothing (skipped and why, a dry run's plan, an action refused by
    t3tui itself), so "What was done" holds every decision."""
    by: dict[str, str] = {}
    quiet: list[ActionDone] = []
    for at, record in replay.log.policies:
        policy = f"policy {record.get('policy')}"
        steps = record.get("steps") or []
        for step in steps:
            for command in step.get("sent") or []:
                if record.get("verdict") == "act" and isinstance(command, dict):
                    by[str(command.get("commandId"))] = policy
        thread = record.get("threadId")
        what = " + ".join(str(a) for a in record.get("do") or [])
        if record.get("verdict") == "skip":
            quiet.append(ActionDone(at, f"skipped {what}", thread, "not sent",
                                    str(record.get("why", "")), by=policy))
        elif record.get("verdict") == "dry-run" and record.get("done"):
            plan = "; ".join(f"{c.get('type')}" for s in steps for c in s.get("sent") or [])
            quiet.append(ActionDone(at, f"would {what}", thread, "dry run", plan, by=policy))
        elif record.get("done"):
            quiet += [ActionDone(at, str(s.get("action")), thread, str(s.get("outcome")),
                                 str(s.get("text", "")), by=policy)
                      for s in steps if not s.get("sent")]
    sent = [replace(_action(c, tracked), by=by.get(str(c.command.get("commandId")), ""))
            for c in replay.log.commands]
    return sorted(sent + quiet, key=lambda a: a.at)


def _action(sent: SentCommand, tracked: list[Moment]) -> ActionDone:
    """The command, and the first thing its thread's stream showed that it took effect."""
    kinds = EFFECTS.get(sent.type, ())
    effect = next((m for m in sorted(tracked, key=lambda m: m.order)
                   if m.at >= sent.at and m.thread_id == sent.thread_id and m.kind in kinds
                   and _matches(sent, m)), None)
    return ActionDone(sent.at, sent.type, sent.thread_id, sent.outcome, sent.message,
                      effect.at if effect else None, effect.text if effect else "")


def _matches(sent: SentCommand, moment: Moment) -> bool:
    if sent.type == "run.interrupt":
        return any(word in moment.text for word in ("interrupted", "cancel", "failed",
                                                    "completed", "stopped"))
    if sent.type == "message.dispatch":
        return moment.text in ("user message", "message")
    return True




async def snapshot_recording(target: Target, timeout: float = 15.0) -> Recording:
    """A recording of one short session (connect, synchronize, stop), read back: what a
    report on a live server without `--record` rests on (the snapshots' own timestamps)."""
    with tempfile.TemporaryDirectory(prefix="t3tui-report-") as folder:
        path = Path(folder) / "session.ndjson.gz"
        recorder = Recorder(path, url=target.base_url)
        session = Session(target, Supervisor(), recorder=recorder)
        runner = asyncio.create_task(session.run())
        try:
            state = await session.wait_synchronized(timeout)
            if isinstance(state, Failed):
                raise ClientError(state.reason)
        finally:
            await session.stop()
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
            recorder.close()
        return read_recording(path)


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in text)[:40].strip("-")


def report_name(doc: dict[str, Any], env: str | None = None) -> str:
    """`t3tui-report-[<environment>-]<short id>-<moment>.md`: safe in any directory, sorted
    by moment. The environment's name keeps apart two servers' threads with the same id."""
    slug = _slug(doc["thread"]["shortId"]) or "thread"
    if env is not None:
        slug = f"{_slug(env) or 'env'}-{slug}"
    moment = str(doc["at"]).replace("-", "").replace(":", "").split(".")[0]
    return f"t3tui-report-{slug}-{moment}Z.md"


def save_report(text: str, directory: Path, name: str) -> Path:
    """Write a new private file (0600) named `name` in `directory`, never over another:
    `-2`, `-3`, ... are added when the name is taken."""
    stem, suffix = name.rsplit(".", 1)
    for attempt in range(1, 100):
        path = directory / (name if attempt == 1 else f"{stem}-{attempt}.{suffix}")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        return path
    raise FileExistsError(f"too many reports named {name} in {directory}")
