"""The acted log: the user's own actions, shared between t3tui processes."""

from datetime import UTC, datetime
from pathlib import Path

from t3tui.policy.acted import MAX_BYTES, ActedLog, acted_path, note_acted

AT = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


def test_where_it_lives() -> None:
    assert acted_path({"T3TUI_ACTED_LOG": "/x/a.jsonl"}) == Path("/x/a.jsonl")
    assert acted_path({"XDG_STATE_HOME": "/s"}) == Path("/s/t3tui/acted.jsonl")
    assert acted_path({"HOME": "/h"}) == Path("/h/.local/state/t3tui/acted.jsonl")


def test_new_entries_of_one_server_are_read_once(tmp_path: Path) -> None:
    path = tmp_path / "state" / "acted.jsonl"
    note_acted("http://127.0.0.1:1/", "before", AT, path)  # before the reader: counts too
    log = ActedLog("http://127.0.0.1:1", path)
    note_acted("http://127.0.0.1:1", "child", AT, path)
    note_acted("http://other:2", "child", AT, path)
    assert log.read() == [("before", AT), ("child", AT)]
    assert log.read() == []
    with path.open("a") as f:
        f.write('{"server": "http://127.0.0.1:1", "threadId": "half')  # being written
    assert log.read() == []
    with path.open("a") as f:
        f.write('", "at": "2026-12-03T09:00:00.000Z"}\nnot json\n')
    assert log.read() == [("half", AT)]
    assert path.stat().st_mode & 0o777 == 0o600
    assert "token" not in path.read_text()


def test_the_file_is_trimmed_and_a_reader_starts_again(tmp_path: Path) -> None:
    path = tmp_path / "acted.jsonl"
    log = ActedLog("http://s", path)
    while not path.exists() or path.stat().st_size <= MAX_BYTES:
        note_acted("http://s", "t" * 200, AT, path)
    log.read()
    note_acted("http://s", "last", AT, path)  # trims first
    assert path.stat().st_size < MAX_BYTES
    assert log.read()[-1] == ("last", AT)


def test_an_unwritable_place_never_fails_the_action(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    note_acted("http://s", "t", AT, blocker / "sub" / "acted.jsonl")  # no exception
    assert ActedLog("http://s", blocker / "sub" / "acted.jsonl").read() == []
