"""A finished run's line says whether it came out ok: read from a log file the next morning
(no colours), "did force-stop ...: force-stop unavailable" read as done. Found running
`watch --act` on the runaway-provider scenario overnight-style."""

from dataclasses import replace
from datetime import UTC, datetime

from t3tui.headless.acting import decision_text
from t3tui.policy import Decision, Step

AT = datetime(2026, 12, 3, 9, 0, 30, tzinfo=UTC)


def decision(*steps: Step) -> Decision:
    started = Decision(3, "runaway-child", "provider-active-after-interrupt", "runaway_provider",
                       AT, AT, "act", ("force-stop",), "due", "held 30s, after = 30s",
                       "Interrupted, still burning CPU")
    return replace(started, steps=steps, done=True) if steps else started


def test_a_run_that_did_not_come_out_ok_says_so() -> None:
    failed = decision(Step("force-stop", "unavailable", "no active run to interrupt"))
    assert failed.line().startswith("by policy 3: tried force-stop (provider-active-")
    assert "force-stop unavailable: no active run to interrupt" in failed.line()
    plain = decision_text(failed).plain
    assert "⚙ failed  Interrupted, still burning CPU  by policy 3: tried force-stop" in plain


def test_a_run_that_came_out_ok_says_done() -> None:
    ok = decision(Step("force-stop", "ok", "force-stopped: run run-1 ended (interrupted)"))
    assert ok.line().startswith("by policy 3: did force-stop (provider-active-")
    assert "⚙ done  Interrupted, still burning CPU  by policy 3: did force-stop" in \
        decision_text(ok).plain


def test_a_run_in_flight_says_acting() -> None:
    assert "⚙ acting  Interrupted, still burning CPU  by policy 3: starting force-stop" in \
        decision_text(decision()).plain
