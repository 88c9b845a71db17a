"""The pure turn trackers (t3tui.model.provider_record) on hand-written record lines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from t3tui.model.provider_record import (
    ABORTED,
    COMPLETED,
    ERRORED,
    RUNNING,
    ClaudeTracker,
    CodexTracker,
    ProviderRecord,
    native_ref,
)

T0 = datetime(2026, 10, 4, 12, 0, tzinfo=UTC)


def at(s: float) -> str:
    return (T0 + timedelta(seconds=s)).isoformat().replace("+00:00", "Z")


def ev(s: float, payload: dict, kind: str = "event_msg") -> dict:
    return {"timestamp": at(s), "type": kind, "payload": payload}


def feed(tracker, lines):
    for i, line in enumerate(lines, 1):
        tracker.feed(line, i)
    return tracker


def test_codex_turns_by_id_with_both_spellings_and_aborts() -> None:
    t = feed(CodexTracker(), [
        ev(0, {"id": "thr", "cwd": "/w"}, "session_meta"),
        ev(1, {"type": "task_started", "turn_id": "a"}),
        ev(2, {"type": "agent_message", "message": "working"}),
        ev(3, {"type": "turn_complete", "turn_id": "a", "last_agent_message": "PONG"}),
        ev(4, {"type": "turn_started", "turn_id": "b"}),
        ev(5, {"type": "turn_aborted", "turn_id": "b", "reason": "budget_limited"}),
        ev(6, {"type": "task_started", "turn_id": "c"}),
    ])
    assert t.session_id == "thr"
    a, b, c = t.turns
    assert (a.turn_id, a.status, a.last_message, a.marker, a.line) == ("a", COMPLETED, "PONG", "turn_complete", 4)
    assert a.ended_at == T0 + timedelta(seconds=3)
    assert (b.status, b.reason) == (ABORTED, "budget_limited")
    assert c.status == RUNNING and not c.terminal


def test_codex_old_files_without_turn_id_follow_order_and_errors_count_as_errored() -> None:
    t = feed(CodexTracker(), [
        ev(1, {"type": "user_message", "message": "hi"}),
        ev(2, {"type": "agent_message", "message": "the last words"}),
        ev(3, {"type": "task_complete", "last_agent_message": None}),
        ev(4, {"type": "task_started"}),
        ev(5, {"type": "task_complete", "last_agent_message": None,
               "error": {"codex_error_info": "usage_limit_exceeded"}}),
    ])
    first, second = t.turns
    # the last agent_message stands in for a null last_agent_message
    assert (first.turn_id, first.status, first.last_message) == (None, COMPLETED, "the last words")
    assert (second.status, second.reason) == (ERRORED, "usage_limit_exceeded")


def test_codex_agent_message_is_the_last_message_when_task_complete_omits_it() -> None:
    t = feed(CodexTracker(), [
        ev(1, {"type": "task_started", "turn_id": "a"}),
        ev(2, {"type": "agent_message", "message": "done it"}),
        ev(3, {"type": "task_complete", "turn_id": "a"}),
    ])
    assert t.turns[0].last_message == "done it"


def test_codex_rollback_drops_finished_turns_and_until_stops_the_replay() -> None:
    lines = [
        ev(1, {"type": "task_started", "turn_id": "a"}),
        ev(2, {"type": "task_complete", "turn_id": "a", "last_agent_message": "x"}),
        ev(3, {"type": "task_started", "turn_id": "b"}),
        ev(4, {"type": "task_complete", "turn_id": "b", "last_agent_message": "y"}),
        ev(5, {"type": "thread_rolled_back", "num_turns": 1}),
    ]
    assert [t.turn_id for t in feed(CodexTracker(), lines).turns] == ["a"]
    as_of = feed(CodexTracker(until=T0 + timedelta(seconds=3.5)), lines)
    assert [(t.turn_id, t.status) for t in as_of.turns] == [("a", COMPLETED), ("b", RUNNING)]


def test_codex_lines_that_are_not_rollout_lines_are_refused_not_crashing() -> None:
    t = CodexTracker()
    assert t.feed({"type": 3, "payload": {}}, 1) is False
    assert t.feed({"type": "event_msg", "payload": "nope"}, 2) is False
    assert t.feed({"type": "event_msg", "payload": {"type": "task_complete", "turn_id": 5}}, 3)
    assert t.turns[0].status == COMPLETED  # a terminal marker with no start is still recorded


def test_claude_turns_by_time_interrupts_and_api_errors() -> None:
    def line(s, kind, **f):
        return {"type": kind, "timestamp": at(s), "sessionId": "sess", **f}

    t = feed(ClaudeTracker(), [
        line(0, "user", message={"role": "user", "content": "Reply PONG"}),
        line(1, "assistant", message={"stop_reason": "tool_use", "content": [{"type": "text", "text": "let me"}]}),
        line(2, "user", message={"content": [{"type": "tool_result", "content": "ok"}]}),
        line(3, "assistant", message={"stop_reason": "end_turn", "content": [{"type": "text", "text": "PONG"}]}),
        line(3.1, "system", subtype="turn_duration", durationMs=3100),
        line(10, "user", message={"content": "second"}),
        line(11, "user", message={"content": [{"type": "text", "text": "[Request interrupted by user]"}]}),
        line(20, "user", message={"content": "third"}),
        line(21, "assistant", isApiErrorMessage=True, message={"content": [{"type": "text", "text": "overloaded"}]}),
        line(30, "user", isSidechain=True, message={"content": "a subagent's prompt"}),
    ])
    assert t.session_id == "sess"
    one, two, three = t.turns
    assert (one.status, one.last_message, one.marker) == (COMPLETED, "PONG", "end_turn")
    assert two.status == ABORTED and three.status == ERRORED
    record = ProviderRecord("claudeAgent", "sess", "found", turns=tuple(t.turns))
    assert record.turn_for(None, T0 + timedelta(seconds=9)) == two
    assert record.turn_for(None, T0 + timedelta(seconds=40)) is None


def test_turn_for_by_id_never_falls_back_to_time_when_ids_are_recorded() -> None:
    t = feed(CodexTracker(), [ev(1, {"type": "task_started", "turn_id": "a"})])
    record = ProviderRecord("codex", "thr", "found", turns=tuple(t.turns))
    assert record.turn_for("a", None) is t.turns[0]
    assert record.turn_for("zzz", T0) is None


def test_native_ref_reads_typed_refs_older_provider_key_and_bare_strings() -> None:
    assert native_ref({"driver": "codex", "nativeId": "x", "strength": "strong"}).driver == "codex"
    assert native_ref({"provider": "claudeAgent", "nativeId": "y"}).driver == "claudeAgent"
    assert native_ref("z", "codex").native_id == "z"
    assert native_ref({"driver": "codex", "nativeId": None}) is None
    assert native_ref("  ") is None and native_ref(42) is None
