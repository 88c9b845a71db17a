"""Bounded memory (issue 25): a thread keeps its latest `keep_messages` messages and `keep_runs`
runs, and the facts the rules read of older ones; rows and findings do not depend on the
bound."""

from __future__ import annotations

import gc
import json
import tracemalloc
from datetime import timedelta

import pytest

from t3tui.model import DetectorConfig, Supervisor, wire
from t3tui.model.checkin import plan_checkin
from tests.model.factory import at, attempt, message, provider_turn, run, shell_row
from tests.model.replay import feed, frame_time, load
from tests.model.timeline import FRAMES

FIXTURES = sorted(p.stem for p in FRAMES.glob("*.json")
                  if {"live", "recorded"} & set(json.loads(p.read_text())))
SHORT = dict(provider_finished_dwell_s=3, detached_session_dwell_s=2, no_progress_s=7,
             drain_too_long_s=4, undelivered_dwell_s=5, claimed_dwell_s=6, orphaned_dwell_s=2,
             phantom_grace_s=3)
THREAD = "thread-long"


def _frames(name: str) -> list[dict]:
    doc = load(name)
    return [fr for fr in doc.get("live", doc.get("recorded", [])) if "mark" not in fr]


@pytest.mark.parametrize("short", [False, True], ids=["default", "short-dwells"])
@pytest.mark.parametrize("name", FIXTURES)
def test_rows_and_findings_do_not_depend_on_the_bound(name: str, short: bool) -> None:
    """The smallest bound (one message and one run per thread) gives every row and finding the
    unbounded model gives, at every frame and on a grid past the longest dwell."""
    frames = _frames(name)
    dwells = SHORT if short else {}
    whole = Supervisor(DetectorConfig(**dwells, keep_messages=10**9, keep_runs=10**9))
    bounded = Supervisor(DetectorConfig(**dwells, keep_messages=1, keep_runs=1))
    times = sorted({t for fr in frames if (t := frame_time(fr)) is not None})
    end = times[-1] + timedelta(seconds=300 if not short else 40)
    grid = [times[0] + timedelta(seconds=1.7 * k)
            for k in range(int((end - times[0]).total_seconds() / 1.7) + 1)]
    i = 0
    for now in sorted({*times, *grid}):
        while i < len(frames) and (frame_time(frames[i]) or now) <= now:
            feed(whole, [frames[i]])
            feed(bounded, [frames[i]])
            i += 1
        expected, got = whole.view(now), bounded.view(now)
        assert got.rows == expected.rows, f"{name} at {now}"
        assert got.findings == expected.findings, f"{name} at {now}"


def _long_thread(sup: Supervisor, messages: range, *, shell_preview: bool = False) -> None:
    row = shell_row(THREAD, "Long conversation", 0)
    if not shell_preview:
        row["latestVisibleMessage"] = None
    if messages.start == 0:
        sup.apply_shell({"kind": "snapshot", "snapshot": {
            "schemaVersion": 1, "snapshotSequence": 1, "projects": [], "threads": [row],
            "archivedThreads": []}})
        sup.apply_shell({"kind": "synchronized"})
        sup.apply_thread(THREAD, {"kind": "snapshot", "snapshotSequence": 1, "projection": {
            "thread": None, "runs": [], "messages": []}})
        sup.apply_thread(THREAD, {"kind": "synchronized"})
    for n in messages:
        role = "user" if n % 2 else "assistant"
        body = message(f"msg-{n}", THREAD, None, role, f"message {n} " + "words " * 40, 1 + n)
        # a fresh dict per event, as the client hands the model what it decoded
        event = json.loads(json.dumps({"kind": "event", "sequence": 10 + n, "event": {
            "id": f"evt-{n}", "threadId": THREAD, "runId": None, "occurredAt": body["createdAt"],
            "type": "message.updated", "payload": body}}))
        sup.apply_thread(THREAD, event)


def _held(sup: Supervisor) -> int:
    # the parsed-timestamp cache is bounded on its own (4,096 stamps, then cleared): not
    # what is measured here
    wire._TS.clear()
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_a_long_conversation_is_held_in_bounded_memory() -> None:
    sup = Supervisor(DetectorConfig(keep_messages=50))
    tracemalloc.start()
    try:
        _long_thread(sup, range(0, 500))
        before = _held(sup)
        _long_thread(sup, range(500, 3000))
        grown = _held(sup) - before
    finally:
        tracemalloc.stop()
    # 2,500 more messages of ~0.6 KiB each would be ~1.5 MB held; the bound keeps it flat
    assert grown < 100_000, f"{grown} bytes more for 2,500 more messages"
    row = sup.row(THREAD, at(4000))
    assert row is not None and row.latest_message.startswith("message 2999 ")


def test_a_checkin_answer_outlives_the_bound() -> None:
    """The check-in's own message and its answer are what its verdict reads: kept however
    many messages come after them."""
    sup = Supervisor(DetectorConfig(keep_messages=2))
    _long_thread(sup, range(0, 10))
    plan = plan_checkin(sup.row(THREAD, at(20)), command_id="cmd-1", message_id="m-checkin",
                        now=at(20), timeout_s=30)
    sup.record_checkin(plan.checkin)
    for n, (mid, role, text) in enumerate([("m-checkin", "user", "Reply exactly PONG"),
                                            ("m-answer", "assistant", "PONG")]):
        sup.apply_thread(THREAD, {"kind": "event", "sequence": 100 + n, "event": {
            "id": f"evt-c{n}", "threadId": THREAD, "runId": None, "occurredAt": None,
            "type": "message.updated",
            "payload": message(mid, THREAD, None, role, text, 21 + n)}})
    assert sup.checkin_verdict(THREAD, at(23)).verdict == "answered"
    _long_thread(sup, range(200, 260))
    verdict = sup.checkin_verdict(THREAD, at(400))
    assert verdict.verdict == "answered" and verdict.latency_s == 1.0


def test_claims_of_dropped_messages_still_count() -> None:
    """A message claiming children is dropped from memory; its claim (what the phantom rule
    reads) is kept."""
    claim = "I started 2 children: alpha and beta."
    whole = Supervisor(DetectorConfig(keep_messages=10**9, phantom_grace_s=3))
    bounded = Supervisor(DetectorConfig(keep_messages=1, phantom_grace_s=3))
    for sup in (whole, bounded):
        _long_thread(sup, range(0, 4))
        sup.apply_thread(THREAD, {"kind": "event", "sequence": 50, "event": {
            "id": "evt-claim", "threadId": THREAD, "runId": None, "occurredAt": None,
            "type": "message.updated",
            "payload": message("m-claim", THREAD, "run-1", "assistant", claim, 10)}})
        _long_thread(sup, range(100, 120))
    expected = whole.view(at(500)).findings
    assert [f.rule for f in expected] == ["claimed-not-real"]  # the claim is what fires
    assert bounded.view(at(500)).findings == expected


def test_a_shell_row_updated_later_costs_what_the_snapshots_row_did() -> None:
    """Each thread.updated arrives in a frame of its own, so its ~50 key strings are its own
    (a snapshot's rows share theirs): without interning them, every thread's memory grows by
    ~2.5 KiB the first time it changes, which a long watch reads as growth over time."""
    rows = [shell_row(f"thread-{i:04d}", f"Thread {i}", i) for i in range(500)]
    sup = Supervisor()
    tracemalloc.start()
    try:
        empty = _held(sup)
        sup.apply_shell(json.loads(json.dumps({"kind": "snapshot", "snapshot": {
            "schemaVersion": 1, "snapshotSequence": 1, "projects": [], "threads": rows,
            "archivedThreads": []}})))
        snapshot = _held(sup) - empty
        for n, row in enumerate(rows):
            sup.apply_shell(json.loads(json.dumps({"kind": "thread.updated", "sequence": 2 + n,
                                                   "location": "active", "thread": row})))
        grown = _held(sup) - empty - snapshot
    finally:
        tracemalloc.stop()
    assert grown < 0.1 * snapshot, f"{grown} bytes more after updating {snapshot} bytes of rows"


def _turns(sup: Supervisor, runs: range) -> None:
    """Run after run on the long thread, each with its attempt and provider turn, each event
    a fresh dict (as decoded); the first run is of the `interrupted` cohort."""
    for n in runs:
        rid, t = f"run-{n}", 10 * n
        done = run(rid, THREAD, n + 1, "completed", t, t + 1, t + 5, "pt-1",
                   cohort="interrupted" if n == 0 else None)
        for seq, (etype, body) in enumerate([
                ("run.created", run(rid, THREAD, n + 1, "running", t, t + 1, None, "pt-1")),
                ("run-attempt.updated", attempt(rid, t + 1, "pt-1")),
                ("provider-turn.updated", provider_turn(f"turn-{n}", rid, "pt-1", "completed",
                                                        t + 1, t + 4, t + 4)),
                ("run.updated", done)]):
            sup.apply_thread(THREAD, json.loads(json.dumps({
                "kind": "event", "sequence": 10_000 + 4 * n + seq, "event": {
                    "id": f"evt-r{n}-{seq}", "threadId": THREAD, "runId": rid,
                    "occurredAt": body.get("startedAt") or body.get("requestedAt"),
                    "type": etype, "payload": body}})))


def test_many_runs_are_held_in_bounded_memory() -> None:
    sup = Supervisor(DetectorConfig(keep_runs=20))
    whole = Supervisor(DetectorConfig(keep_runs=10**9))
    _long_thread(whole, range(0, 2))
    _turns(whole, range(0, 1000))
    tracemalloc.start()
    try:
        _long_thread(sup, range(0, 2))
        _turns(sup, range(0, 200))
        before = _held(sup)
        _turns(sup, range(200, 1000))
        grown = _held(sup) - before
    finally:
        tracemalloc.stop()
    # 800 more runs with their attempts and turns would be ~2 MB held; the bound keeps it flat
    assert grown < 100_000, f"{grown} bytes more for 800 more runs"
    # what the rules read of the dropped runs stays: the first run's cohort, the latest request
    own, full = sup._ix.own(THREAD), whole._ix.own(THREAD)
    assert own.cohorts == full.cohorts == {"run-0": "interrupted"}
    assert own.latest_run_requested_at == full.latest_run_requested_at == at(9990)
    assert sup.row(THREAD, at(10_000)) == whole.row(THREAD, at(10_000))


def test_a_checkin_run_outlives_the_bound() -> None:
    """A check-in's run ended without the answer: `unanswered`, however many runs follow."""
    sup = Supervisor(DetectorConfig(keep_runs=1, keep_messages=1))
    _long_thread(sup, range(0, 2))
    plan = plan_checkin(sup.row(THREAD, at(20)), command_id="cmd-1", message_id="m-checkin",
                        now=at(20), timeout_s=600)
    sup.record_checkin(plan.checkin)
    ended = run("run-c", THREAD, 1, "completed", 21, 21, 22, "pt-1")
    ended["userMessageId"] = "m-checkin"
    for seq, (etype, body) in enumerate([
            ("message.updated", message("m-checkin", THREAD, "run-c", "user", "Reply PONG", 21)),
            ("run.updated", ended)]):
        sup.apply_thread(THREAD, {"kind": "event", "sequence": 100 + seq, "event": {
            "id": f"evt-c{seq}", "threadId": THREAD, "runId": "run-c", "occurredAt": None,
            "type": etype, "payload": body}})
    assert sup.checkin_verdict(THREAD, at(30)).verdict == "unanswered"
    _turns(sup, range(5, 40))
    _long_thread(sup, range(300, 320))
    assert sup.checkin_verdict(THREAD, at(500)).verdict == "unanswered"
