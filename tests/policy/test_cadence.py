"""`Cadence`: the rule of when the policies evaluate again, for `watch --act` and the app."""

from t3tui.policy.cadence import Cadence


def test_news_state_or_a_second_make_a_look_due_and_nothing_else() -> None:
    cadence = Cadence(every=1.0)
    assert cadence.due("s", 10.0) and cadence.due_in(10.0) == 0.0  # never evaluated
    cadence.evaluated("s", 10.0)
    assert not cadence.due("s", 10.5) and cadence.due_in(10.5) == 0.5
    cadence.news(False)  # only a finding's words moved on
    assert not cadence.due("s", 10.9)
    assert cadence.due("other", 10.9)  # the connection, the switch, a pause
    assert cadence.due("s", 11.0) and cadence.due_in(11.2) == 0.0  # time alone
    cadence.news(True)
    assert cadence.due("s", 10.1) and cadence.due_in(10.1) == 0.0
    cadence.evaluated("s", 10.1)
    assert not cadence.due("s", 10.2)
