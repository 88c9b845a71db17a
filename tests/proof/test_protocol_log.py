"""T3's protocol log reader and the three-way verdict, on hand-written log files."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from t3tui.model.provider_record import (
    FOUND,
    HEARD,
    MISSING,
    NEVER_FINISHED,
    NEVER_RECEIVED,
    NOT_PROJECTED,
    RecordTurn,
    t3_log_verdict,
)
from t3tui.proof.t3log import ProtocolLogReader

AT = datetime(2026, 10, 4, 12, tzinfo=UTC)
DONE = RecordTurn("t1", "completed", AT, AT, "task_complete", 9, "PONG")
OPEN = RecordTurn("t1", "running", AT, None, None, 3, None)


def line(tag: str, body: dict) -> str:
    return f"[2026-10-04T12:00:00.000Z] {tag}: {json.dumps(body)}\n"


NTIVE_DONE = line("NTIVE", {"method": "turn/completed",
                            "params": {"threadId": "n", "turn": {"id": "t1", "status": "completed"}}})
ORCH_DONE = line("ORCH", {"type": "provider-turn.updated",
                          "payload": {"id": "pturn-1", "status": "completed"}})


def read(tmp_path, text: str, thread: str = "thread-1"):
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    (logs / f"events.{thread}.log").write_text(text)
    return ProtocolLogReader(logs, final=True).refresh([thread])[thread]


def test_the_three_cases_and_heard(tmp_path) -> None:
    orch_start = line("ORCH", {"type": "provider-turn.updated",
                               "payload": {"id": "pturn-1", "status": "running"}})
    never = read(tmp_path, orch_start)
    assert never.state == FOUND and t3_log_verdict(never, DONE, "t1", "pturn-1") == NEVER_RECEIVED
    assert t3_log_verdict(never, OPEN, "t1", "pturn-1") == NEVER_FINISHED
    got = read(tmp_path, orch_start + NTIVE_DONE)
    assert t3_log_verdict(got, DONE, "t1", "pturn-1") == NOT_PROJECTED
    both = read(tmp_path, orch_start + NTIVE_DONE + ORCH_DONE)
    assert t3_log_verdict(both, DONE, "t1", "pturn-1") == HEARD


def test_bad_lines_are_counted_and_a_missing_log_is_no_verdict(tmp_path) -> None:
    log = read(tmp_path, "garbage\n[x] NTIVE: {not json\n" + NTIVE_DONE + "[2026-10-04T12:00")
    assert log.skipped == 3 and "t1" in log.ntive_completed
    missing = ProtocolLogReader(tmp_path / "nowhere").refresh(["thread-1"])["thread-1"]
    assert missing.state == MISSING and t3_log_verdict(missing, DONE, "t1", "p") is None


def test_thread_ids_with_colons_use_the_sanitised_segment(tmp_path) -> None:
    thread = "thread:delegated-task:command%3Amcp"
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "events.thread_delegated-task_command_3Amcp.log").write_text(NTIVE_DONE)
    log = ProtocolLogReader(logs).refresh([thread])[thread]
    assert log.state == FOUND and log.ntive_completed == frozenset({"t1"})
