"""What the proof layer found travels in a recording's notes and comes back as it was: a
provider record (agent text only as its excerpt, only the latest turns) and T3's protocol log;
a damaged note is no evidence; a replay hands each note to its supervisor at its moment."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from t3tui.client.recording import read_recording
from t3tui.client.replay import Replay
from t3tui.model import Supervisor
from t3tui.model.proof_wire import (
    TURNS_KEPT,
    log_from_wire,
    log_to_wire,
    record_from_wire,
    record_to_wire,
)
from t3tui.model.provider_record import (
    EXCERPT,
    FOUND,
    ProtocolLog,
    ProviderRecord,
    RecordTurn,
)

T0 = datetime(2026, 12, 3, 9, 14, 34, 447123, tzinfo=UTC)


def turn(n: int, text: str = "PONG") -> RecordTurn:
    return RecordTurn(f"turn-{n}", "completed", T0 + timedelta(seconds=n),
                      T0 + timedelta(seconds=n, microseconds=250_001), "task_complete",
                      10 + n, text, None)


def record(*turns: RecordTurn) -> ProviderRecord:
    return ProviderRecord("codex", "01a2-native", FOUND, "/home/u/.codex/sessions/r.jsonl",
                          None, turns, 40, 1, T0 + timedelta(seconds=9))


def test_a_record_comes_back_as_it_was_with_its_times_to_the_microsecond() -> None:
    original = record(turn(1), turn(2))
    wire = json.loads(json.dumps(record_to_wire(original)))  # as the file holds it
    assert record_from_wire(wire) == original


def test_agent_text_is_kept_as_its_excerpt_and_only_the_latest_turns() -> None:
    long = "secret " * 200
    back = record_from_wire(record_to_wire(record(*(turn(n) for n in range(50)), turn(99, long))))
    assert back is not None and len(back.turns) == TURNS_KEPT
    assert back.turns[-1].turn_id == "turn-99" and back.turns[0].turn_id == f"turn-{51 - TURNS_KEPT}"
    assert back.turns[-1].last_message is not None
    assert len(back.turns[-1].last_message) <= EXCERPT < len(long)


def test_a_damaged_note_is_no_evidence() -> None:
    for bad in (None, "x", [], {}, {"driver": "codex", "nativeId": 3, "state": FOUND}):
        assert record_from_wire(bad) is None
    kept = record_from_wire({"driver": "codex", "nativeId": "n", "state": FOUND,
                             "turns": [{"status": "completed", "endedAt": "never", "line": "x"},
                                       {"turnId": "no status"}, 7]})
    assert kept is not None and len(kept.turns) == 1
    assert kept.turns[0].ended_at is None and kept.turns[0].line == 0
    assert log_from_wire({"ntiveCompleted": ["a"]}) is None


def test_a_protocol_log_comes_back_as_it_was() -> None:
    log = ProtocolLog(FOUND, "/home/u/.t3/logs/events.t.log", None, frozenset({"turn-2"}),
                      frozenset({"pturn-1"}), 12, 0)
    assert log_from_wire(json.loads(json.dumps(log_to_wire(log)))) == log


def test_a_replay_hands_each_note_to_its_supervisor_at_its_moment(tmp_path: Path) -> None:
    stamp = "%Y-%m-%dT%H:%M:%S.%fZ"
    found = record(turn(1))
    log = ProtocolLog(FOUND, "/l", None, frozenset(), frozenset(), 3, 0)
    lines = [{"t3tuiRecording": 1, "startedAt": T0.strftime(stamp), "server": {}},
             {"t": T0.strftime(stamp), "connection": "open", "server": {}},
             {"t": (T0 + timedelta(seconds=5)).strftime(stamp), "note": "providerRecord",
              "providerRecord": {"threadId": "child", "record": record_to_wire(found)}},
             {"t": (T0 + timedelta(seconds=5)).strftime(stamp), "note": "protocolLog",
              "protocolLog": {"threadId": "child", "log": log_to_wire(log)}},
             {"t": (T0 + timedelta(seconds=8)).strftime(stamp), "note": "providerRecord",
              "providerRecord": {"threadId": "child", "record": None}}]
    path = tmp_path / "notes.ndjson.gz"
    path.write_bytes(gzip.compress("\n".join(json.dumps(x) for x in lines).encode()))
    replay = Replay(read_recording(path), Supervisor)
    replay.seek((T0 + timedelta(seconds=4)).timestamp())
    assert replay.sink.provider_record("child") is None
    replay.seek((T0 + timedelta(seconds=5)).timestamp())
    assert replay.sink.provider_record("child") == found
    assert replay.sink.protocol_log("child") == log
    assert [(at, tid) for at, tid, _r in replay.log.records] == [
        ((T0 + timedelta(seconds=5)).timestamp(), "child")]
    replay.seek((T0 + timedelta(seconds=8)).timestamp())
    assert replay.sink.provider_record("child") is None  # forgotten, as it was live
