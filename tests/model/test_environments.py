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


# -- Combined offers what one Supervisor does (issue 21: `I` failed with AttributeError) --

def public_names(obj: object) -> set[str]:
    return {n for n in dir(obj) if not n.startswith("_")}


def test_combined_offers_every_part_of_the_supervisors_interface() -> None:
    import inspect

    one = Supervisor()
    combined = Combined([("laptop", one), ("devbox", Supervisor())])
    kept_out = Combined.PER_ENVIRONMENT
    missing = sorted(public_names(one) - public_names(combined) - set(kept_out))
    assert not missing, f"Combined lacks {missing}: route them or say why in PER_ENVIRONMENT"
    assert set(kept_out) <= public_names(one)  # no stale excuse for a name that went away
    for name in public_names(one) & public_names(combined):
        mine, theirs = getattr(one, name), getattr(combined, name)
        if inspect.ismethod(mine) or inspect.isfunction(mine):
            assert callable(theirs), name
            assert list(inspect.signature(mine).parameters) == \
                list(inspect.signature(theirs).parameters), name


def test_thread_calls_go_to_the_threads_own_environment() -> None:
    from tests.model import factory as f
    from tests.model.test_second_wave import P, running_thread, sup_of

    laptop, devbox = sup_of(running_thread()), sup_of(running_thread())
    combined = Combined([("laptop", laptop), ("devbox", devbox)])
    combined.record_interrupt(f"devbox:{P}", "run-p1", f.at(10))
    view = combined.view(f.at(31))
    assert [(x.thread_id, x.rule) for x in view.findings] == [
        (f"devbox:{P}", "interrupt-not-landed")]
    assert combined.thread_synchronized(f"laptop:{P}") == laptop.thread_synchronized(P)
    assert combined.cursor_thread(f"devbox:{P}") == devbox.cursor_thread(P) is not None
    assert combined.threads_of_interest() == {
        qualify(n, t) for n, s in (("laptop", laptop), ("devbox", devbox))
        for t in s.threads_of_interest()}
    assert combined.checkin_verdict(f"devbox:{P}", f.at(31)) is None
    assert not combined.has_message(f"devbox:{P}", "no-such-message")


def test_a_task_rows_parent_is_qualified_like_the_rows_parent() -> None:
    # forward and dispose find the parent by `task.parent_thread_id`: it must name the row
    laptop = supervisor("seed000_serialized")
    merged = Combined([("laptop", laptop)]).view(now(10_000))
    tasks = [r for r in merged.rows if r.task is not None]
    assert tasks
    for row in tasks:
        assert row.task.parent_thread_id == row.parent_id
        assert merged.row(row.task.parent_thread_id) is not None
