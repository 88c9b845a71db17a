"""Interest follows activity, not only families (issue 23): every top-level thread that is
doing something is watched, released once quiet past the window, within a cap that is said."""

from __future__ import annotations

from t3tui.model import DetectorConfig, Supervisor
from t3tui.model.interest import watch_window_s
from tests.model.factory import shell_row

CFG = DetectorConfig()
WINDOW = watch_window_s(CFG)


def snapshot(*rows: dict, seq: int = 100) -> dict:
    return {"kind": "snapshot", "snapshot": {"schemaVersion": 1, "snapshotSequence": seq,
                                             "projects": [], "threads": list(rows),
                                             "archivedThreads": []}}


def updated(row: dict, seq: int) -> dict:
    return {"kind": "thread.updated", "sequence": seq, "location": "active", "thread": row}


def running(tid: str, started: float) -> dict:
    return shell_row(tid, tid, 0, parent=None, updated=started, status="running",
                     activity="running", run=f"run-{tid}", requested=started, started=started)


def ended(tid: str, started: float, end: float, status: str = "interrupted") -> dict:
    return shell_row(tid, tid, 0, parent=None, updated=end, status=status, run=f"run-{tid}",
                     requested=started, started=started, completed=end)


def idle(tid: str, updated: float) -> dict:
    return shell_row(tid, tid, 0, parent=None, updated=updated)


def test_top_level_threads_doing_something_are_watched_without_a_family() -> None:
    sup = Supervisor(CFG)
    blocked = shell_row("asks", "asks", 0, parent=None, updated=5, status="running",
                        activity="running", run="run-asks", requested=1, started=1,
                        pending={"requestId": "req-1", "kind": "approval"})
    sup.apply_shell(snapshot(running("busy", 100), ended("stopped", 1, 90), idle("old", 3),
                             ended("done-long-ago", 1, 2, "completed"), blocked))
    assert sup.threads_of_interest() == {"busy", "stopped", "asks"}
    watching = sup.watching()
    assert watching is not None and (watching.active, watching.watched) == (3, 3)
    assert sup.view(sup._activity.clock).watching == watching


def test_a_thread_is_released_once_quiet_past_the_window_by_the_streams_clock() -> None:
    sup = Supervisor(CFG)
    sup.apply_shell(snapshot(running("a", 10), running("b", 10)))
    assert sup.threads_of_interest() == {"a", "b"}
    sup.apply_shell(updated(ended("a", 10, 20), 101))
    assert sup.threads_of_interest() == {"a", "b"}  # just ended: still watched
    sup.apply_shell(updated(running("b", 20 + WINDOW - 1), 102))
    assert "a" in sup.threads_of_interest()
    sup.apply_shell(updated(running("b", 20 + WINDOW + 1), 103))
    assert sup.threads_of_interest() == {"b"}
    assert sup.watching().active == 1


def test_past_the_cap_the_least_recently_active_are_not_watched_and_that_is_said() -> None:
    sup = Supervisor(DetectorConfig(watch_cap=2))
    sup.apply_shell(snapshot(running("t1", 1), running("t2", 2), running("t3", 3)))
    assert sup.threads_of_interest() == {"t2", "t3"}
    watching = sup.watching()
    assert (watching.active, watching.watched, watching.unwatched) == (3, 2, 1)
    assert watching.describe() == "watching 2 of 3 active threads"
    sup.apply_shell(updated(running("t1", 9), 101))  # t1 active again: t2 is the oldest now
    assert sup.threads_of_interest() == {"t1", "t3"}
    sup.set_watch_cap(5)
    assert sup.threads_of_interest() == {"t1", "t2", "t3"}
    assert sup.watching().unwatched == 0


def test_a_look_reads_only_the_threads_that_changed_since_the_last() -> None:
    # the client asks once per frame of a burst: its work is what changed, not the tree
    for size in (200, 2000):
        sup = Supervisor(CFG)
        sup.apply_shell(snapshot(*(idle(f"idle-{k}", 3) for k in range(size)),
                                 *(running(f"busy-{k}", 10) for k in range(20))))
        assert len(sup.threads_of_interest()) == 20
        read: list[str] = []
        own = sup._ix.own

        def counted(thread_id: str, own=own, read=read) -> object:
            read.append(thread_id)
            return own(thread_id)

        sup._ix.own = counted  # type: ignore[method-assign]
        sup.apply_shell(updated(idle("idle-7", 11), 101))  # retitled, say: still quiet
        assert len(sup.threads_of_interest()) == 20
        sup.apply_shell(updated(running("idle-8", 12), 102))  # starts a run: watched
        assert "idle-8" in sup.threads_of_interest()
        sup.apply_shell(updated(ended("busy-3", 10, 13), 103))  # ends: still watched
        assert len(sup.threads_of_interest()) == 21
        assert sorted(set(read)) == ["busy-3", "idle-7", "idle-8"], size
        assert len(read) <= 2 * 3, size  # read once by the look (and once for its own row)
