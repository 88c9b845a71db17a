"""Every guard of the decision, one at a time, on a pure clock."""

from datetime import UTC, datetime, timedelta

from t3tui.model.findings import STUCK, UNDELIVERED_RESULT, Finding
from t3tui.policy import (
    Journal,
    Limits,
    Occurrences,
    PolicySet,
    Situation,
    Step,
    decide,
    parse_text,
    recommended,
)

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
LIVE = Situation(live=True, synchronized=True)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def unheard(thread: str = "child", since: float = 5) -> Finding:
    return Finding("provider_finished_unheard", thread, "provider-finished-unheard",
                   "the provider finished", {}, at(since))


def not_landed(thread: str = "child", since: float = 5) -> Finding:
    return Finding(STUCK, thread, "interrupt-not-landed", "stop not landed", {}, at(since))


class Harness:
    """The engine as a front end drives it: one view after another, a journal kept."""

    def __init__(self, policies: PolicySet | None = None, start: float = 0) -> None:
        self.policies = policies or recommended()
        self.occ = Occurrences()
        self.occ.start(at(start))
        self.journal = Journal()
        self.user: dict[str, datetime] = {}

    def tick(self, seconds: float, findings: list[Finding], situation: Situation = LIVE,
             synced: frozenset[str] | None = None):
        now = at(seconds)
        seen = self.occ.update(findings, now,
                               (lambda t: t in synced) if synced is not None else (lambda _t: True))
        return decide(self.policies, seen, now, situation, self.user, self.journal)


def verdicts(decisions) -> list[tuple[int, str, str, str]]:
    return [(d.policy, d.thread_id, d.verdict, d.code) for d in decisions]


def test_acts_once_after_the_dwell_and_never_again_for_that_occurrence() -> None:
    h = Harness()
    assert h.tick(10, [unheard()]) == []  # first seen at 10 s
    assert h.tick(39, [unheard()]) == []  # held 29 s < 30 s
    first = h.tick(40, [unheard()])
    assert verdicts(first) == [(1, "child", "act", "due")]
    assert first[0].do == ("interrupt", "forward")
    assert "held 30s, after = 30s" in first[0].why
    for t in (41, 100, 1000):
        assert h.tick(t, [unheard()]) == []
    assert [d.verdict for d in h.journal] == ["act"]


def test_the_dwell_counts_from_when_t3tui_first_saw_it_not_from_its_onset() -> None:
    h = Harness()
    h.tick(100, [unheard(since=20)])  # the onset is 80 s old, but t3tui sees it now
    assert h.tick(129, [unheard(since=20)]) == []
    assert verdicts(h.tick(130, [unheard(since=20)])) == [(1, "child", "act", "due")]


def test_a_finding_that_clears_and_returns_is_a_new_occurrence() -> None:
    h = Harness(parse_text('[policies]\nper_thread = 5\n', "f"))
    h.tick(10, [unheard()])
    assert len(h.tick(40, [unheard()])) == 1
    h.tick(50, [])  # cleared
    h.tick(60, [unheard(since=55)])
    assert h.tick(89, [unheard(since=55)]) == []
    assert verdicts(h.tick(90, [unheard(since=55)])) == [(1, "child", "act", "due")]


def test_history_is_reported_not_acted_on() -> None:
    h = Harness(start=100)  # t3tui was synchronized at 100 s
    old = unheard(since=50)  # began before that
    h.tick(100, [old])
    decisions = h.tick(130, [old])
    assert verdicts(decisions) == [(1, "child", "skip", "history")]
    assert "before t3tui was watching" in decisions[0].why
    assert h.tick(500, [old]) == []  # said once, final


def test_a_finding_without_onset_in_the_first_view_before_synchronized_is_history() -> None:
    h = Harness()
    h.occ = Occurrences()  # not started: nothing synchronized yet
    orphan = Finding(UNDELIVERED_RESULT, "c", "undelivered-result", "r", {}, None)
    policies = parse_text('[[policy]]\nwhen = "undelivered-result"\nafter = "1m"\ndo = "forward"', "f")
    h.policies = policies
    h.tick(0, [orphan])
    h.occ.start(at(1))
    assert verdicts(h.tick(61, [orphan])) == [(1, "c", "skip", "history")]


def test_many_old_findings_at_start_do_nothing() -> None:
    """The #9057 lesson: 338 threads already showing a finding when t3tui starts."""
    h = Harness(start=1000)
    old = [unheard(f"t{i}", since=i) for i in range(338)]
    h.tick(1000, old)
    decisions = h.tick(1100, old)
    assert len(decisions) == 338
    assert {d.verdict for d in decisions} == {"skip"}
    assert h.tick(1200, old) == []


def test_stale_replay_and_unsynchronized_hold_and_say_so_once() -> None:
    for situation, code in [
        (Situation(live=False, synchronized=True), "stale"),
        (Situation(live=True, synchronized=False), "not-synchronized"),
        (Situation(live=True, synchronized=True, replay=True), "replay"),
    ]:
        h = Harness()
        h.tick(10, [unheard()])
        assert verdicts(h.tick(40, [unheard()], situation)) == [(1, "child", "skip", code)]
        assert h.tick(41, [unheard()], situation) == []  # said once
        assert verdicts(h.tick(42, [unheard()])) == [(1, "child", "act", "due")]  # then acts


def test_a_thread_whose_stream_is_not_synchronized_is_held() -> None:
    h = Harness()
    h.tick(10, [unheard()], synced=frozenset())
    assert verdicts(h.tick(40, [unheard()], synced=frozenset())) == [
        (1, "child", "skip", "not-synchronized")]
    assert verdicts(h.tick(41, [unheard()], synced=frozenset({"child"}))) == [
        (1, "child", "act", "due")]


def test_user_acted_recently_holds_until_the_quiet_time_passed() -> None:
    h = Harness()
    h.user["child"] = at(20)
    h.tick(10, [unheard()])
    held = h.tick(40, [unheard()])
    assert verdicts(held) == [(1, "child", "skip", "user-acted")]
    assert "09:00:20" in held[0].why and "5m" in held[0].why
    assert h.tick(319, [unheard()]) == []  # 299 s after the user: still held, said once
    assert verdicts(h.tick(320, [unheard()])) == [(1, "child", "act", "due")]


def test_user_acted_on_another_thread_does_not_hold() -> None:
    h = Harness()
    h.user["parent"] = at(20)
    h.tick(10, [unheard()])
    assert verdicts(h.tick(40, [unheard()])) == [(1, "child", "act", "due")]


def test_the_per_thread_rate_limit_gives_up_and_says_so() -> None:
    h = Harness(parse_text('[policies]\nper_thread = 1\nper_thread_period = "1h"\n', "f"))
    h.tick(10, [unheard()])
    assert verdicts(h.tick(40, [unheard()])) == [(1, "child", "act", "due")]
    h.tick(45, [not_landed(since=41)])  # the stop did not land: policy 2's finding
    limited = h.tick(75, [not_landed(since=41)])
    assert verdicts(limited) == [(2, "child", "skip", "rate-thread")]
    assert "gave up: 1 policy run(s) on this thread within 1h" in limited[0].why
    assert h.tick(5000, [not_landed(since=41)]) == []  # final: never retried for it


def test_the_per_thread_window_slides() -> None:
    h = Harness(parse_text('[policies]\nper_thread = 1\nper_thread_period = "10m"\n', "f"))
    h.tick(10, [unheard()])
    h.tick(40, [unheard()])
    h.tick(700, [])
    h.tick(710, [unheard(since=705)])
    assert verdicts(h.tick(740, [unheard(since=705)])) == [(1, "child", "act", "due")]


def test_the_hourly_limit_holds_across_threads() -> None:
    h = Harness(parse_text('[policies]\nper_hour = 3\n', "f"))
    findings = [unheard(f"t{i}", since=5 + i) for i in range(5)]
    h.tick(10, findings)
    decisions = h.tick(40, findings)
    assert [d.verdict for d in decisions] == ["act", "act", "act", "skip", "skip"]
    assert {d.code for d in decisions[3:]} == {"rate-hour"}
    # the oldest occurrences go first; an hour later new ones may act again
    h.tick(3700, [])
    h.tick(3710, [unheard("t9", since=3705)])
    assert verdicts(h.tick(3740, [unheard("t9", since=3705)])) == [(1, "t9", "act", "due")]


def test_dry_run_plans_the_same_and_counts_against_the_limits() -> None:
    h = Harness(parse_text('[policies]\nper_hour = 1\n', "f"))
    dry = Situation(live=True, synchronized=True, dry_run=True)
    h.tick(10, [unheard("a"), unheard("b", since=6)])
    decisions = h.tick(40, [unheard("a"), unheard("b", since=6)], dry)
    assert verdicts(decisions) == [(1, "a", "dry-run", "due"), (1, "b", "skip", "rate-hour")]
    assert decisions[0].line().startswith("by policy 1: would interrupt + forward")


def test_several_policies_on_one_finding_each_run_once() -> None:
    policies = parse_text('''
[policies]
per_thread = 5
[[policy]]
when = "stuck"
after = "10s"
do = "notify"
notify = { url = "http://127.0.0.1:1/x" }
[[policy]]
when = "interrupt-not-landed"
after = "30s"
do = "force-stop"
''', "f")
    h = Harness(policies)
    h.tick(10, [not_landed()])
    assert verdicts(h.tick(20, [not_landed()])) == [(1, "child", "act", "due")]
    assert verdicts(h.tick(40, [not_landed()])) == [(2, "child", "act", "due")]
    assert h.tick(80, [not_landed()]) == []


def test_a_policy_for_another_finding_does_nothing() -> None:
    h = Harness()
    slow = Finding(STUCK, "child", "no-progress", "quiet", {}, at(5))
    h.tick(10, [slow])
    assert h.tick(10_000, [slow]) == []
    assert len(h.journal) == 0


def test_the_journal_records_outcomes_and_its_record_shape() -> None:
    h = Harness()
    h.tick(10, [unheard()])
    (decision,) = h.tick(40, [unheard()])
    assert decision.result == "pending"
    assert decision.line().startswith("by policy 1: starting interrupt + forward")
    done = h.journal.finish(decision, (
        Step("interrupt", "ok", "interrupted", ({"type": "run.interrupt"},)),
        Step("forward", "refused", "server refused: no result"),
    ))
    assert list(h.journal) == [done]
    assert done.result == "refused"
    record = done.record()
    assert record["kind"] == "policy" and record["policy"] == 1
    assert record["verdict"] == "act" and record["result"] == "refused"
    assert record["steps"][0]["sent"] == [{"type": "run.interrupt"}]
    assert record["seenAt"] == "2026-12-03T09:00:10.000Z"
    assert "by policy 1: tried interrupt + forward" in done.line()  # not all came out ok
    assert "forward refused: server refused: no result" in done.line()
    assert h.journal.about("child") == [done]
    assert h.journal.about("other") == []


def test_limits_default_to_conservative_values() -> None:
    limits = Limits()
    assert limits.per_thread <= 2 and limits.per_hour <= 10 and limits.user_quiet_s >= 120
