"""SVG snapshots of the key screens (pytest-textual-snapshot): recorded frames, frozen clock,
fixed ids. The same scenes are exported to `screenshots/` by `make snapshots`.

Review a changed snapshot before accepting it (`pytest --snapshot-update`)."""

from __future__ import annotations

from typing import Any

import pytest

from t3tui.tui.screenshots import BY_NAME


def check(snap_compare: Any, name: str) -> None:
    scene = BY_NAME[name]
    assert snap_compare(scene.make(), terminal_size=scene.size, run_before=scene.prepare)


def test_tree_in_every_state(snap_compare: Any) -> None:
    check(snap_compare, "tree")


def test_detail_of_a_stuck_child(snap_compare: Any) -> None:
    check(snap_compare, "detail")


def test_transcript_names_delegated_tasks(snap_compare: Any) -> None:
    check(snap_compare, "transcript")


def test_needs_input_with_brackets_verbatim(snap_compare: Any) -> None:
    check(snap_compare, "needs_input")


def test_timeline_of_serialized_waits(snap_compare: Any) -> None:
    check(snap_compare, "timeline")


def test_settle_confirmation_warns_about_shared_session(snap_compare: Any) -> None:
    check(snap_compare, "settle_confirm")


def test_reconnect_banner(snap_compare: Any) -> None:
    check(snap_compare, "reconnect_banner")


def test_help_screen(snap_compare: Any) -> None:
    check(snap_compare, "help")


@pytest.mark.parametrize("name", ["narrow", "narrow_tree", "narrow_transcript"])
def test_80x24(snap_compare: Any, name: str) -> None:
    check(snap_compare, name)


@pytest.mark.parametrize("name", ["toasts", "narrow_toasts"])
def test_a_burst_of_toasts(snap_compare: Any, name: str) -> None:
    check(snap_compare, name)


def test_two_environments(snap_compare: Any) -> None:
    check(snap_compare, "environments")


def test_replay_bar_on_a_recording(snap_compare: Any) -> None:
    check(snap_compare, "replay")


def test_triage_report_in_the_app(snap_compare: Any) -> None:
    check(snap_compare, "report")
