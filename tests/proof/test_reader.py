"""The file side (t3tui.proof): locating records, tailing with kept offsets, zstd, bad lines."""

from __future__ import annotations

import json
import os

import zstandard

from t3tui.model.provider_record import COMPLETED, FOUND, MISSING, RUNNING, UNREADABLE, NativeRef
from t3tui.proof.homes import ProofHomes, resolve_homes
from t3tui.proof.locate import find_codex_rollout, uuid7_day
from t3tui.proof.records import RecordReader

TID = "019a0b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b"


def line(kind: str, payload: dict, ts: str = "2026-10-04T12:00:00.000Z") -> bytes:
    return (json.dumps({"timestamp": ts, "type": kind, "payload": payload}) + "\n").encode()


def rollout(home, day="2025/10/20", name=None, suffix=".jsonl"):
    path = home / "sessions" / day / (name or f"rollout-2025-10-20T10-00-00-{TID}{suffix}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_tail_reads_only_appended_bytes_and_holds_a_partial_line(tmp_path) -> None:
    path = rollout(tmp_path)
    path.write_bytes(line("session_meta", {"id": TID}) + line("event_msg", {"type": "task_started", "turn_id": "t"}))
    reader = RecordReader(ProofHomes(tmp_path, None), relook_s=0)
    want = {"thread-1": NativeRef("codex", TID)}
    rec = reader.refresh(want)["thread-1"]
    assert (rec.state, rec.turns[0].status, rec.lines) == (FOUND, RUNNING, 2)
    first = reader.bytes_read
    done = line("event_msg", {"type": "task_complete", "turn_id": "t", "last_agent_message": "PONG"})
    with open(path, "ab") as fh:
        fh.write(done[:20])  # the writer is mid-line
    assert reader.refresh(want)["thread-1"].turns[0].status == RUNNING
    with open(path, "ab") as fh:
        fh.write(done[20:])
    rec = reader.refresh(want)["thread-1"]
    assert rec.turns[0].status == COMPLETED and rec.turns[0].last_message == "PONG"
    assert reader.bytes_read == first + len(done)  # never the whole file again


def test_malformed_and_truncated_lines_are_skipped_and_counted(tmp_path) -> None:
    path = rollout(tmp_path)
    path.write_bytes(line("session_meta", {"id": TID}) + b"{not json\n" + b"[1,2]\n"
                     + line("event_msg", {"type": "task_started", "turn_id": "t"}) + b'{"timestamp": "2026-')
    rec = RecordReader(ProofHomes(tmp_path, None), final=True).refresh({"a": NativeRef("codex", TID)})["a"]
    assert rec.state == FOUND and rec.skipped == 3 and len(rec.turns) == 1


def test_zstd_rollouts_are_read_and_the_plain_file_wins(tmp_path) -> None:
    zpath = rollout(tmp_path, suffix=".jsonl.zst")
    data = line("session_meta", {"id": TID}) + line("event_msg", {"type": "task_complete", "last_agent_message": "z"})
    zpath.write_bytes(zstandard.ZstdCompressor().compress(data))
    rec = RecordReader(ProofHomes(tmp_path, None)).refresh({"a": NativeRef("codex", TID)})["a"]
    assert rec.state == FOUND and rec.turns[0].last_message == "z" and rec.path.endswith(".zst")
    plain = rollout(tmp_path)
    plain.write_bytes(line("session_meta", {"id": TID}))
    assert find_codex_rollout(tmp_path, TID) == plain


def test_archived_sessions_are_found_and_a_missing_record_is_no_verdict(tmp_path) -> None:
    reader = RecordReader(ProofHomes(tmp_path, None), relook_s=0)
    assert reader.refresh({"a": NativeRef("codex", TID)})["a"].state == MISSING
    arch = tmp_path / "archived_sessions" / f"rollout-2025-10-20T10-00-00-{TID}.jsonl"
    arch.parent.mkdir()
    arch.write_bytes(line("session_meta", {"id": TID}))
    assert reader.refresh({"a": NativeRef("codex", TID)})["a"].state == FOUND


def test_a_file_of_another_thread_or_unreadable_is_unreadable(tmp_path) -> None:
    path = rollout(tmp_path)
    path.write_bytes(line("session_meta", {"id": "someone-else"}))
    rec = RecordReader(ProofHomes(tmp_path, None)).refresh({"a": NativeRef("codex", TID)})["a"]
    assert rec.state == UNREADABLE and "someone-else" in rec.detail
    if os.geteuid() != 0:  # root reads anything
        path.chmod(0)
        rec = RecordReader(ProofHomes(tmp_path, None)).refresh({"a": NativeRef("codex", TID)})["a"]
        assert rec.state == UNREADABLE


def test_unsafe_ids_are_never_globbed(tmp_path) -> None:
    reader = RecordReader(ProofHomes(tmp_path, tmp_path))
    for bad in ("../../etc/passwd", "*", "a/b", "x[1]"):
        assert reader.refresh({"a": NativeRef(None, bad)})["a"].state == MISSING


def test_uuid7_narrows_the_day() -> None:
    assert uuid7_day(TID) is not None
    assert uuid7_day("not-a-uuid") is None


def test_homes_follow_flags_then_ours_then_the_providers_rules(tmp_path) -> None:
    env = {"HOME": str(tmp_path), "CODEX_HOME": "/c", "CLAUDE_CONFIG_DIR": "/k"}
    h = resolve_homes(env=env)
    assert (str(h.codex), str(h.claude)) == ("/c", "/k")
    h = resolve_homes(env={**env, "T3TUI_CODEX_HOME": "/ours"}, claude="off")
    assert (str(h.codex), h.claude) == ("/ours", None)
    assert resolve_homes(env={"HOME": str(tmp_path)}).codex == tmp_path / ".codex"
    assert not resolve_homes(env={**env, "T3TUI_PROOF": "0"}).enabled
    assert not resolve_homes(enabled=False, env=env).enabled
