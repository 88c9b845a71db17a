"""The app on a recording: x100 replay and `f` give the live run's findings at their
moments; a replay is read-only; `w` writes and shows the report, live (from the recording
as it grows) and in replay; bad recordings stop the launcher with one line."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from t3tui.backend.testing import running_backend
from t3tui.client.backoff import Backoff
from t3tui.client.recorder import Recorder
from t3tui.client.recording import read_recording
from t3tui.client.secret import Secret, Target
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.screens.report import ReportScreen
from t3tui.tui.sources.replay import ReplaySource
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.replay_bar import ReplayBar
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.headless.cli import cli
from tests.triage import foreign
from tests.triage.flows import LiveRun
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e
SIZE = (160, 48)
SLACK = timedelta(seconds=1.0)


def replay_app(path: Path, report_dir: Path | None = None) -> SupervisorApp:
    source = ReplaySource(read_recording(path))
    app = SupervisorApp(source, config=TuiConfig(bell=False, toast=False), clock=source.clock)
    if report_dir is not None:
        app.report_dir = report_dir
    return app


def findings(app: SupervisorApp) -> dict[tuple[str, str, str], Any]:
    assert app.view is not None
    return {f.key: f for f in app.view.findings}


@pytest.mark.parametrize("flow", ["seed004", "seed000"])
async def test_x100_and_next_finding_match_the_live_run(
        flow: str, request: pytest.FixtureRequest) -> None:
    live: LiveRun = request.getfixturevalue(flow)
    app = replay_app(live.path)
    async with app.run_test(size=SIZE) as pilot:
        source: ReplaySource = app.source  # type: ignore[assignment]
        await until(lambda: source.opened and app.view and app.view.rows, what="first tree")
        assert not app.view.findings  # opened on the first complete tree, before any flag
        # every finding, by `f`, at the moment the live client first saw it
        for _ in live.first_seen:
            await pilot.press("f")
            await pilot.pause()
        seen = findings(app)
        assert set(seen) == set(live.first_seen)
        for key, finding in seen.items():
            assert finding.since == live.since[key]
        last = max(live.first_seen.values())
        assert abs(source.clock() - last) < SLACK
        await pilot.press("f")  # nothing more appears: the clock stays
        await pilot.pause()
        assert abs(source.clock() - last) < SLACK
        assert "no finding appears" in str(app.query_one(ReplayBar).render())
        # x100 from the top: the same findings appear while it plays, then it stops at the end
        source.seek(source.start)
        app.refresh_view()
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert source.speed == 100
        await pilot.press("r")  # a short recording may be over by the first frame
        appeared: dict[tuple[str, str, str], datetime] = {}

        def played() -> bool:
            for key in findings(app):
                appeared.setdefault(key, source.clock())
            return not source.playing
        await until(played, timeout=30, what="the replay to reach its end")
        app.refresh_view()
        assert set(findings(app)) >= set(live.first_seen)
        assert set(appeared) >= set(live.first_seen)  # each flag showed up while playing
        for key, when in appeared.items():
            # never early; at x100 a screen refresh (throttled under load) moves the clock
            # by seconds, so it may show a little late: `f` above gives the exact moment
            assert when >= live.first_seen[key] - SLACK, (key, when)


async def test_a_replay_is_read_only_and_shows_its_keys(tmp_path: Path) -> None:
    app = replay_app(foreign.write(tmp_path / "nightly.ndjson.gz"))
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.view and app.view.rows, what="first tree")
        app.query_one(ThreadTree).select_thread(foreign.CHILD)
        await pilot.pause()
        for action in ("settle", "checkin", "interrupt", "answer", "message"):
            assert app.check_action(action, ()) is False
            assert "read-only" in (app.why_not(action) or "")
        for action in ("replay_play", "replay_speed", "replay_step", "replay_finding",
                       "replay_seek", "report"):
            assert app.check_action(action, ()) is True
        bar = str(app.query_one(ReplayBar).render())
        assert "paused" in bar and "x1" in bar and "18:12:50" in bar
        await pilot.press("n")  # one event on
        await pilot.pause()
        assert "event" in str(app.query_one(ReplayBar).render())
        await pilot.press("g")
        await pilot.pause()
        await pilot.press(*"+21", "enter")
        await pilot.pause()
        assert app.source.clock() == foreign.T0 + timedelta(seconds=21)  # type: ignore[attr-defined]
        row = app.view.row(foreign.CHILD)
        assert row is not None and row.state == "running"  # before the dwell ran out
        # past the end (the README's +2m on a shorter recording): the end, and the bar says so
        await pilot.press("g")
        await pilot.pause()
        await pilot.press(*"+1h", "enter")
        await until(lambda: "past the end of the recording" in str(
            app.query_one(ReplayBar).render()), what="the bar saying so")
        assert app.source.clock().timestamp() == app.source.end  # type: ignore[attr-defined]


async def test_report_key_in_replay_writes_and_shows_the_report(tmp_path: Path) -> None:
    app = replay_app(foreign.write(tmp_path / "nightly.ndjson.gz"), report_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.view and app.view.rows, what="first tree")
        await pilot.press("f")
        await pilot.pause()
        app.query_one(ThreadTree).select_thread(foreign.CHILD)
        await pilot.pause()
        await pilot.press("w")
        await until(lambda: isinstance(app.screen, ReportScreen), what="the report screen")
        [written] = list(tmp_path.glob("t3tui-report-*.md"))
        assert written.read_text().startswith("# Stuck child: Reply READY")
        assert oct(written.stat().st_mode & 0o777) == "0o600"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main_screen


async def test_live_app_records_and_reports_from_the_growing_recording(
        tmp_path: Path) -> None:
    async with running_backend(scenario="settle-unsubscribe") as backend:
        path = tmp_path / "live.ndjson.gz"
        recorder = Recorder(path, url=backend.url)
        source = LiveSource(Target(backend.url, Secret(backend.token)), backoff=Backoff.fast(),
                            recorder=recorder)
        app = SupervisorApp(source, config=TuiConfig(bell=False))
        app.report_dir = tmp_path
        try:
            async with app.run_test(size=SIZE) as pilot:
                await until(lambda: app.view and len(app.view.rows) == 2, what="the pair")
                assert app.check_action("report", ()) is True
                assert app.check_action("replay_play", ()) is False  # live: no replay keys
                await pilot.press("w")
                await until(lambda: isinstance(app.screen, ReportScreen), what="report")
        finally:
            recorder.close()
    [written] = list(tmp_path.glob("t3tui-report-*.md"))
    text = written.read_text()
    assert "## Lineage" in text and "t3tui reference backend" in text
    assert read_recording(path).lines  # the session itself was recorded


@pytest.mark.parametrize(("content", "says"), [
    (None, "no such file"), (b"", "is empty"), (b"PK\x03\x04zip", "not a t3tui recording"),
    (b'{"t3tuiRecording": 7}\n', "format 7"),
])
async def test_the_app_refuses_a_bad_recording_in_one_line(tmp_path: Path, content: bytes | None,
                                                           says: str) -> None:
    path = tmp_path / "bad.ndjson.gz"
    if content is not None:
        path.write_bytes(content)
    result = await cli("--replay", str(path))
    assert (result.code, result.out) == (2, "")
    assert says in result.err and result.err.count("\n") == 1


async def test_record_refuses_an_existing_file_and_a_dead_server(tmp_path: Path) -> None:
    existing = tmp_path / "taken.ndjson.gz"
    existing.write_bytes(b"keep me")
    taken = await cli("record", "-o", str(existing), "--url", "http://127.0.0.1:9",
                      "--token=x")
    assert taken.code == 2 and "never overwritten" in taken.err
    assert existing.read_bytes() == b"keep me"
    nowhere = tmp_path / "new.ndjson.gz"
    dead = await cli("record", "-o", str(nowhere), "--url", "http://127.0.0.1:9", "--token=x",
                     "--connect-timeout", "1")
    assert dead.code == 2 and dead.err.count("\n") == 1
    assert not nowhere.exists()  # nothing recorded: no empty file left behind


async def test_record_command_then_status_and_report_on_its_file(tmp_path: Path) -> None:
    path = tmp_path / "cli.ndjson.gz"
    async with running_backend(scenario="settle-unsubscribe") as backend:
        done = await cli("record", "-o", str(path), "--url", backend.url,
                         f"--token={backend.token}", "--duration", "1")
        token = backend.token
    assert done.code == 0 and "recorded" in done.err
    import gzip
    assert token not in gzip.decompress(path.read_bytes()).decode()
    status = await cli("status", "--replay", str(path), "--json")
    assert status.code == 0 and len(status.json()["threads"]) == 2
    report = await cli("report", "--replay", str(path), "Same-session child")
    assert report.code == 0 and report.out.startswith("# Triage: Same-session child")



async def test_watch_records_what_it_watches(tmp_path: Path) -> None:
    path = tmp_path / "watch.ndjson.gz"
    async with running_backend(scenario="settle-unsubscribe") as backend:
        watched = await cli("watch", "--record", str(path), "--duration", "1", "--url",
                            backend.url, f"--token={backend.token}")
    assert watched.code == 0, watched.err
    recording = read_recording(path)
    assert recording.header["server"]["label"] == "t3tui reference backend"
    status = await cli("status", "--replay", str(path), "--json")
    assert status.code == 0 and len(status.json()["threads"]) == 2
