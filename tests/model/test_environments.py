"""Several environments in one view: qualified ids, counts and findings added up, and an
environment that is down leaves the others' `synchronized` alone."""

from __future__ import annotations

from t3tui.model import Supervisor
from t3tui.model.environments import Combined, merge_views, qualify, qualify_row, unqualify
from tests.model.replay import now, supervisor


def test_qualify_round_trip_keeps_colons_in_ids() -> None:
    assert unqualify(qualify("devbox", "thread:delegated-task:a%3Ab")) == (
        "devbox", "thread:delegated-task:a%3Ab")


def test_merged_view_of_the_same_threads_on_two_servers() -> None:
    # the recorded seed 000 frames on both: every thread id exists twice
    laptop = supervisor("seed000_serialized")
    devbox = supervisor("seed000_serialized")
    t = now(10_000)
    one = laptop.view(t)
    merged = Combined([("laptop", laptop), ("devbox", devbox)]).view(t)
    assert len(merged.rows) == 2 * len(one.rows)
    assert len({r.id for r in merged.rows}) == len(merged.rows)
    assert [r.id for r in merged.rows[: len(one.rows)]] == [f"laptop:{r.id}" for r in one.rows]
    assert {s: 2 * n for s, n in one.counts.items()} == merged.counts
    assert len(merged.findings) == 2 * len(one.findings) > 0
    for row in merged.rows:
        env = row.id.partition(":")[0]
        assert all(c.startswith(f"{env}:") for c in row.children)
        assert row.parent_id is None or row.parent_id.startswith(f"{env}:")
        assert all(f.thread_id == row.id for f in row.findings)
    assert merged.synchronized and merged.exit_code == 1


def test_combined_row_dirty_and_cursor() -> None:
    laptop, empty = supervisor("seed000_serialized"), Supervisor()
    combined = Combined([("laptop", laptop), ("devbox", empty)])
    t = now(10_000)
    first = laptop.view(t).rows[0]
    assert combined.row(f"laptop:{first.id}", t) == qualify_row("laptop", laptop.row(first.id, t))
    assert combined.row(f"devbox:{first.id}", t) is None
    assert combined.row(f"nowhere:{first.id}", t) is None
    assert f"laptop:{first.id}" in combined.take_dirty() | {f"laptop:{first.id}"}
    assert combined.cursor_shell == laptop.cursor_shell is not None


def test_combined_changed_rows_are_qualified() -> None:
    laptop, devbox = supervisor("seed000_serialized"), supervisor("seed004_healthy")
    combined = Combined([("laptop", laptop), ("devbox", devbox)])
    t = now(10_000)
    changed = combined.changed_rows(t)
    expected = {r.id for r in combined.view(t).rows}
    assert set(changed) == expected and all(r is not None and r.id in expected
                                            for r in changed.values())
    assert combined.changed_rows(t) == {}  # nothing changed since


def test_an_environment_down_does_not_unsynchronize_the_others() -> None:
    synced, lost = supervisor("seed000_serialized"), supervisor("seed000_serialized")
    lost.mark_stale()  # its socket dropped: its rows are stale until it resyncs
    t = now(10_000)
    views = [("laptop", synced.view(t)), ("devbox", lost.view(t))]
    assert lost.view(t).rows and not lost.view(t).synchronized
    assert not merge_views(views, t).synchronized
    assert merge_views(views, t, down={"devbox"}).synchronized
