"""Stops that do not take (field-failures.md: T3 #4524/#7722 and #5587), evaluated per thread.

Each rule has an onset (when its condition began, from facts alone) and a dwell; it fires once
`now` passes onset + dwell, so its deadline is known without re-running it every tick.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from t3tui.model.config import DetectorConfig
from t3tui.model.context import ThreadContext
from t3tui.model.detectors.common import age, declares, held, human
from t3tui.model.detectors.proof import record_says
from t3tui.model.findings import RUNAWAY_PROVIDER, STUCK, Finding
from t3tui.model.wire import iso


def interrupt_onset(ctx: ThreadContext) -> tuple[datetime, str] | None:
    """(when the stop was asked, who asked) while the same run is still active and unanswered."""
    own = ctx.own
    if own.activity is None or own.active_run_id is None:
        return None
    if own.interrupt_asked is not None:
        at, message = own.interrupt_asked
        if at is not None:
            return at, message or "a run_interrupt_request"
    sent = ctx.sent_interrupt
    if sent is not None and sent[0] == own.active_run_id and sent[0] not in own.interrupt_answered:
        return sent[1], "this t3tui (command accepted)"
    return None


@declares(depends=("own.id", "own.activity", "own.active_run_id", "own.interrupt_asked",
                   "own.interrupt_answered", "own.provider_turn_status", "sent_interrupt"),
          dwell="interrupt_landing_dwell_s")
def interrupt_not_landed(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """A `run.interrupt` was accepted, but the run is still active and no result came back."""
    onset = interrupt_onset(ctx)
    if onset is None:
        return []
    asked_at, who = onset
    dwell = config.interrupt_landing_dwell_s
    if not held(asked_at, now, dwell):
        return []
    own = ctx.own
    return [Finding(
        STUCK, own.id, "interrupt-not-landed",
        f"a stop was accepted {human(age(asked_at, now))} ago but run {own.active_run_id} is still "
        f"{own.activity} and no interrupt result arrived",
        {"runId": own.active_run_id, "activityRunStatus": own.activity, "requestedAt": iso(asked_at),
         "requestedBy": who, "providerTurnStatus": own.provider_turn_status,
         "heldSeconds": age(asked_at, now), "thresholdSeconds": dwell},
        asked_at,
    )]


def runaway_onset(ctx: ThreadContext) -> tuple[str, datetime, tuple[str, ...]] | None:
    """(run id, when it ended interrupted, provider parts still running)."""
    runaway = ctx.own.runaway
    if runaway is None or ctx.own.activity is not None or runaway[1] is None:
        return None
    return runaway[0], runaway[1], runaway[2]


@declares(depends=("own.id", "own.runaway", "own.activity", "provider_record",
                   "own.native_thread", "own.native_turn", "own.provider_turn_started_at",
                   "own.run_started_at"),
          dwell="provider_after_interrupt_dwell_s")
def provider_active_after_interrupt(ctx: ThreadContext, config: DetectorConfig,
                                    now: datetime) -> list[Finding]:
    """The run is `interrupted` while its provider turn or thread still runs past the dwell."""
    onset = runaway_onset(ctx)
    if onset is None:
        return []
    run_id, ended, parts = onset
    dwell = config.provider_after_interrupt_dwell_s
    if not held(ended, now, dwell):
        return []
    evidence: dict[str, Any] = {
        "runId": run_id, "runStatus": "interrupted", "interruptedAt": iso(ended),
        "stillActive": list(parts), "heldSeconds": age(ended, now), "thresholdSeconds": dwell,
    }
    said = record_says(ctx)  # the provider's own record, when read, says it too (or not)
    clause = ""
    if said is not None:
        evidence.update({k: v for k, v in said[0].items() if v is not None})
        clause = f"; {said[1]}"
    return [Finding(
        RUNAWAY_PROVIDER, ctx.own.id, "provider-active-after-interrupt",
        f"run {run_id} was interrupted {human(age(ended, now))} ago but the provider keeps going "
        f"({'; '.join(parts)}){clause}; its process may still be using CPU",
        evidence, ended,
    )]


RULES = (interrupt_not_landed, provider_active_after_interrupt)


def interrupt_findings(ctx: ThreadContext, config: DetectorConfig, now: datetime) -> list[Finding]:
    """A thread waiting for a human is not stuck on a stop (its approval may be what blocks it)."""
    if ctx.own.pending is not None:
        return provider_active_after_interrupt(ctx, config, now)
    return [finding for rule in RULES for finding in rule(ctx, config, now)]
