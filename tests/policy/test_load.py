"""Policy files are checked whole before anything runs: each problem is one line naming the
entry."""

from pathlib import Path

import pytest

from t3tui.policy import (
    RECOMMENDED_TOML,
    Limits,
    Notify,
    PolicyError,
    format_duration,
    load_file,
    parse_duration,
    parse_text,
    recommended,
)


@pytest.mark.parametrize(("text", "seconds"), [
    ("30s", 30), ("10m", 600), ("1h30m", 5400), ("500ms", 0.5), ("2d", 172800), (" 1m 5s ", 65),
    ("1.5m", 90),
])
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["30", "", "10x", "m", "5m3", "-5s", 30, None, "1h-2m"])
def test_bad_durations_are_refused(bad: object) -> None:
    with pytest.raises(PolicyError):
        parse_duration(bad)


def test_format_duration_round_trips_whole_units() -> None:
    for seconds in (1, 59, 60, 90, 3600, 5400, 86461):
        assert parse_duration(format_duration(seconds)) == seconds
    assert format_duration(0.25) == "250ms"


def test_the_issue_example_parses() -> None:
    policies = parse_text('''
[[policy]]
when = "provider-finished-unheard"
after = "30s"
do = ["interrupt", "forward"]
[[policy]]
when = "interrupt-not-landed"
after = "30s"
do = "force-stop"
[[policy]]
when = "no-progress"
after = "10m"
do = "checkin"
''', "p.toml")
    assert [(p.number, p.when, p.after_s, p.do) for p in policies.policies] == [
        (1, "provider-finished-unheard", 30, ("interrupt", "forward")),
        (2, "interrupt-not-landed", 30, ("force-stop",)),
        (3, "no-progress", 600, ("checkin",)),
    ]
    assert policies.limits == Limits()
    assert policies.source == "p.toml"


def test_a_kind_may_be_written_with_dashes_or_underscores() -> None:
    one = parse_text('[[policy]]\nwhen = "undelivered-result"\nafter = "1m"\ndo = "forward"', "f")
    two = parse_text('[[policy]]\nwhen = "orphaned-delivery"\nafter = "1m"\ndo = "notify"\n'
                     'notify = { command = "notify-send t3tui" }', "f")
    assert one.policies[0].when == "undelivered-result"  # a rule id, kept as written
    assert two.policies[0].when == "orphaned_delivery"  # a kind, normalised
    assert two.policies[0].notify == Notify(command=("notify-send", "t3tui"))


def test_limits_are_read() -> None:
    policies = parse_text('[policies]\nper_thread = 1\nper_thread_period = "30m"\n'
                          'per_hour = 4\nuser_quiet = "2m"\n', "f")
    assert policies.limits == Limits(1, 1800, 4, 120)
    assert policies.source == "recommended"  # no [[policy]]: the recommended set
    assert policies.policies == recommended().policies


@pytest.mark.parametrize(("body", "message"), [
    ('[[policy]]\nwhen = "no-progres"\nafter = "1m"\ndo = "checkin"',
     "f: policy 1 (when = 'no-progres'): unknown finding or rule 'no-progres'"),
    ('[[policy]]\nwhen = "no-progress"\nafter = "1m"\ndo = "checkin"\n'
     '[[policy]]\nwhen = "stuck"\nafter = "1m"\ndo = ["interrupt", "reboot"]',
     "f: policy 2 (when = 'stuck'): unknown action 'reboot'"),
    ('[[policy]]\nwhen = "stuck"\nafter = "10"\ndo = "checkin"',
     "f: policy 1 (when = 'stuck'): after: not a duration: '10'"),
    ('[[policy]]\nwhen = "stuck"\nafter = 10\ndo = "checkin"',
     "f: policy 1 (when = 'stuck'): after: a duration is text with a unit"),
    ('[[policy]]\nwhen = "stuck"\ndo = "checkin"', "f: policy 1 (when = 'stuck'): missing 'after'"),
    ('[[policy]]\nwhen = "stuck"\nafter = "1m"\ndo = []', "do: give an action"),
    ('[[policy]]\nwhen = "stuck"\nafter = "1m"\ndo = ["checkin", "checkin"]', "names an action twice"),
    ('[[policy]]\nwhen = "stuck"\nafer = "1m"\ndo = "checkin"', "unknown key 'afer'"),
    ('[[policy]]\nwhen = "stuck"\nafter = "1m"\ndo = "notify"', "'notify' in do and a notify table"),
    ('[[policy]]\nwhen = "stuck"\nafter = "1m"\ndo = "notify"\nnotify = { url = "ftp://x" }',
     "notify url must start with http"),
    # the run already ended: an interrupt can never apply (the forced stop can: below)
    ('[[policy]]\nwhen = "runaway-provider"\nafter = "1m"\ndo = ["notify", "interrupt"]\n'
     'notify = { command = "true" }', "f: policy 1 (when = 'runaway-provider'): interrupt needs"),
    ('[policies]\nper_hour = -1', "f: [policies] per_hour: a whole number >= 0"),
    ('[policies]\nper_day = 3', "f: [policies]: unknown key 'per_day'"),
    ('[policies]\nuser_quiet = "soon"', "f: [policies] user_quiet: not a duration"),
    ('[keys]\nsettle = "S"', "f: unknown section 'keys'"),
    ('[[policy]\n', "f: not valid TOML"),
])
def test_each_problem_is_one_line_naming_the_entry(body: str, message: str) -> None:
    with pytest.raises(PolicyError) as caught:
        parse_text(body, "f")
    text = str(caught.value)
    assert message in text
    assert "\n" not in text


def test_the_app_config_may_hold_other_sections(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[keys]\nsettle = "S"\n[[policy]]\nwhen = "stuck"\nafter = "1m"\ndo = "checkin"\n')
    assert len(load_file(path, only_policies=False)) == 1
    with pytest.raises(PolicyError, match="unknown section"):
        load_file(path)


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="no such policy file"):
        load_file(tmp_path / "none.toml")


def test_the_recommended_set_is_the_documented_text() -> None:
    policies = recommended()
    assert parse_text(RECOMMENDED_TOML, "recommended").policies == policies.policies
    assert [(p.when, p.do) for p in policies.policies] == [
        ("provider-finished-unheard", ("interrupt", "forward")),
        ("interrupt-not-landed", ("force-stop",)),
    ]
    assert all(p.after_s >= 30 for p in policies.policies)


@pytest.mark.parametrize("when", ["provider-active-after-interrupt", "runaway_provider"])
def test_a_forced_stop_of_a_runaway_provider_loads_and_an_interrupt_of_it_does_not(
        when: str) -> None:
    # the run already ended, so an interrupt has nothing to act on; the forced stop detaches
    # the provider session the runaway turn still runs in (T3 #5587)
    [policy] = parse_text(f'[[policy]]\nwhen = "{when}"\nafter = "1m"\ndo = "force-stop"', "f").policies
    assert policy.do == ("force-stop",)
    with pytest.raises(PolicyError, match=r"interrupt needs an active run.*use force-stop"):
        parse_text(f'[[policy]]\nwhen = "{when}"\nafter = "1m"\ndo = "interrupt"', "f")
