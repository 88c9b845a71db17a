"""Proof from the machine: the provider's own record against what T3 shows (pure).

`provider_finished_unheard`: the provider's session record (a Codex rollout, a Claude Code
transcript) says the turn T3 still shows running completed or aborted at T, and T3 has not
heard for a dwell after T. A missing or unreadable record is "no provider record": never a
verdict. Evidence quotes the record's turn markers and a short excerpt, never the file.
"""

from __future__ import annotations

from datetime import datetime

from t3tui.model.config import DetectorConfig
from t3tui.model.context import ThreadContext
from t3tui.model.detectors.common import age, declares, held, human
from t3tui.model.findings import PROVIDER_FINISHED_UNHEARD, Finding
from t3tui.model.provider_record import (
    ABORTED,
    CLAUDE,
    ERRORED,
    FOUND,
    T3_LOG_WORDS,
    ProviderRecord,
    RecordTurn,
    excerpt,
    t3_log_verdict,
)
from t3tui.model.wire import iso

ACTIVE = ("starting", "running")
T3_TURN_LIVE = (None, "pending", "running")
PROVIDER_NAMES = {CLAUDE: "Claude Code", "codex": "Codex"}


def record_turn(ctx: ThreadContext) -> tuple[ProviderRecord, RecordTurn] | None:
    """The provider record's turn for this thread's latest provider turn, if the record was
    found and holds it (Codex: by turn id; Claude and id-less rollouts: by time)."""
    record, own = ctx.provider_record, ctx.own
    if record is None or record.state != FOUND or own.native_thread is None:
        return None
    if record.native_id != own.native_thread.native_id:
        return None  # a record of another provider thread (the run moved on)
    by_id = own.native_turn.native_id if own.native_turn and record.driver != CLAUDE else None
    turn = record.turn_for(by_id, own.provider_turn_started_at or own.run_started_at)
    return (record, turn) if turn is not None else None


def _quote(text: str | None) -> str:
    return "none" if text is None else f'"{excerpt(text, 60)}"'


@declares(depends=("own.id", "own.activity", "own.provider_turn_status", "own.native_thread",
                   "own.native_turn", "own.provider_turn_id", "own.provider_turn_started_at",
                   "own.run_started_at", "own.active_run_id", "provider_record", "protocol_log"),
          dwell="provider_unheard_dwell_s")
def provider_finished_unheard(ctx: ThreadContext, config: DetectorConfig,
                              now: datetime) -> list[Finding]:
    own = ctx.own
    if own.activity not in ACTIVE or own.provider_turn_status not in T3_TURN_LIVE:
        return []  # T3 heard the end (provider-finished-run-running covers a stuck run then)
    found = record_turn(ctx)
    if found is None:
        return []
    record, turn = found
    if not turn.terminal or turn.ended_at is None:
        return []
    if own.run_started_at is not None and turn.ended_at < own.run_started_at:
        return []  # an earlier turn's end, matched by time: not this run
    if not held(turn.ended_at, now, config.provider_unheard_dwell_s):
        return []
    who = PROVIDER_NAMES.get(record.driver, record.driver)
    verb = {ABORTED: "aborted", ERRORED: "ended this turn with an error"}.get(turn.status, "finished")
    what = f"{who} {verb} this turn at {turn.ended_at.strftime('%H:%M:%S')} " \
           f"({turn.marker}, last message {_quote(turn.last_message)})"
    evidence = {
        "recordFile": record.path, "recordLine": turn.line, "marker": turn.marker,
        "endedAt": iso(turn.ended_at), "lastMessage": excerpt(turn.last_message),
        "recordStatus": turn.status, "reason": turn.reason, "t3TurnStatus": own.provider_turn_status,
        "driver": record.driver, "nativeThreadId": record.native_id, "nativeTurnId": turn.turn_id,
        "runId": own.active_run_id, "providerTurnId": own.provider_turn_id,
        "heldSeconds": age(turn.ended_at, now), "thresholdSeconds": config.provider_unheard_dwell_s,
        "skippedLines": record.skipped}
    native_turn = own.native_turn.native_id if own.native_turn else None
    verdict = t3_log_verdict(ctx.protocol_log, turn, native_turn, own.provider_turn_id)
    log_says = ""
    if verdict is not None and ctx.protocol_log is not None:
        evidence["t3ProtocolLog"] = verdict
        evidence["t3ProtocolLogFile"] = ctx.protocol_log.path
        log_says = f" ({T3_LOG_WORDS[verdict]})"
    return [Finding(
        PROVIDER_FINISHED_UNHEARD, own.id, "provider-finished-unheard",
        f"{what}; T3 still shows it {own.activity} {human(age(turn.ended_at, now))} later: "
        f"T3 never heard{log_says}",
        {k: v for k, v in evidence.items() if v is not None},
        turn.ended_at,
    )]


def record_says(ctx: ThreadContext) -> tuple[dict[str, object], str] | None:
    """What the provider's own record says of the thread's latest turn, for rules that a
    provider-side fact sharpens (provider-active-after-interrupt): evidence and a clause."""
    found = record_turn(ctx)
    if found is None:
        return None
    record, turn = found
    who = PROVIDER_NAMES.get(record.driver, record.driver)
    evidence: dict[str, object] = {"recordFile": record.path, "recordStatus": turn.status,
                                   "recordLastLineAt": iso(record.last_line_at)}
    if turn.terminal:
        evidence.update(marker=turn.marker, recordLine=turn.line, endedAt=iso(turn.ended_at))
        at = turn.ended_at.strftime("%H:%M:%S") if turn.ended_at else "?"
        return evidence, f"{who}'s own record ended the turn at {at} ({turn.marker})"
    last = record.last_line_at.strftime("%H:%M:%S") if record.last_line_at else "?"
    return evidence, f"{who}'s own record shows the turn still open (no end marker; last line {last})"


def proof_findings(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    if ctx.own.pending is not None:
        return []
    return provider_finished_unheard(ctx, config, now)
