"""`OwnPauseClock`: the time rows are derived at leaves out the front end's own pause until
the facts are fresh again, and never goes back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from t3tui.policy.resume import FRESH_S, GAP_S, OwnPauseClock

START = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


class Clocks:
    def __init__(self) -> None:
        self.t = 100.0

    def wall(self) -> datetime:
        return START + timedelta(seconds=self.t - 100.0)

    def monotonic(self) -> float:
        return self.t


def test_a_pause_is_left_out_until_the_facts_are_fresh_then_the_wall_clock_is_back() -> None:
    c = Clocks()
    clock = OwnPauseClock(c.wall, c.monotonic)
    assert clock() == START
    c.t += 1
    before = clock()
    assert before == c.wall()  # looking every second: the wall clock
    c.t += 600  # a suspend of ten minutes
    assert clock() == before  # where it stood when the pause began
    c.t += 2
    assert clock() == before + timedelta(seconds=2)  # and runs on from there
    for _ in range(int(FRESH_S)):  # looking every second again
        c.t += 1
        clock()
    assert clock() == c.wall()


def test_a_second_pause_in_the_hold_adds_to_the_first_and_time_never_goes_back() -> None:
    c = Clocks()
    clock = OwnPauseClock(c.wall, c.monotonic)
    given = [clock()]
    for step in (1, 300, 1, GAP_S + 1, *[1] * int(FRESH_S + 1)):
        c.t += step
        given.append(clock())
    assert given == sorted(given)
    assert given[4] == given[3]  # the second pause, in the hold, left out as well
    assert given[-1] == c.wall()


def test_a_pause_that_outlived_the_socket_is_left_out_until_the_streams_are_current() -> None:
    c, live = Clocks(), [True]
    clock = OwnPauseClock(c.wall, c.monotonic, current=lambda: live[0])
    clock()
    c.t += 1
    before = clock()
    c.t += 600  # a suspend of ten minutes ...
    live[0] = False  # ... and the socket was found dead after it: reconnecting
    assert clock() == before and clock.holding
    for _ in range(int(FRESH_S) * 3):  # reconnecting for longer than the hold
        c.t += 1
        assert clock() == c.wall() - timedelta(seconds=600)
    assert clock.holding
    live[0] = True  # resumed and synchronized
    c.t += 1
    assert clock() == c.wall() and not clock.holding
