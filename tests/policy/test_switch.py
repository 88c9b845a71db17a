"""The kill switch: the policy file removed, changed or broken is read again safely."""

import os
from pathlib import Path

from t3tui.policy import PolicyFile, Switch

GOOD = '[[policy]]\nwhen = "stuck"\nafter = "1m"\ndo = "checkin"\n'


def touch_later(path: Path, text: str) -> None:
    """Write, and move the mtime on so a change is seen even within one clock tick."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text)
    os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))


def test_an_unchanged_file_is_not_read_again(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(GOOD)
    watcher = PolicyFile(path)
    assert watcher.check() is None
    assert watcher.check() is None


def test_removed_switches_off_and_a_good_version_switches_on(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(GOOD)
    watcher = PolicyFile(path)
    path.unlink()
    change = watcher.check()
    assert change is not None and not change.on and "was removed" in change.text
    assert watcher.check() is None  # said once
    touch_later(path, GOOD + GOOD)
    change = watcher.check()
    assert change is not None and change.on and change.policies is not None
    assert len(change.policies) == 2


def test_a_broken_version_switches_off_with_its_one_line(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(GOOD)
    watcher = PolicyFile(path)
    touch_later(path, GOOD.replace("checkin", "reboot"))
    change = watcher.check()
    assert change is not None and not change.on and change.policies is None
    assert "policies off:" in change.text and "unknown action 'reboot'" in change.text
    assert "\n" not in change.text


def test_the_switch_says_why() -> None:
    switch = Switch()
    assert not switch.on
    assert switch.set(True, "--act")
    assert not switch.set(True, "again")
    assert switch.toggle("SIGUSR1") is False
    assert switch.why == "SIGUSR1"
