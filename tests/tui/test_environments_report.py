"""The triage report (`w`) in an app watching two environments: two reference backends on
127.0.0.1:0 over real websockets, the same scenario on both (so the same thread ids). A report
on a `NAME:ID` row rests on that environment alone, as an app watching only it would write it;
and `--record FILE` with several environments keeps one recording each."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest

from t3tui import actions
from t3tui.backend.server import environment_id_for, open_backend
from t3tui.client.backoff import Backoff
from t3tui.client.recorder import RecordingExists
from t3tui.client.recording import read_recording
from t3tui.client.secret import Secret, Target
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.screens.report import ReportScreen
from t3tui.tui.sources.environments import EnvSource, MultiSource, env_path
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.env_tree import EnvThreadTree
from tests.tui.test_environments import CHILD_TITLE, PARENT, SIZE, env, options, synced
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


def child_of(app: SupervisorApp, name: str) -> str:
    assert app.view is not None
    [child] = [r.id for r in app.view.rows if r.parent_id == f"{name}:{PARENT}"]
    return child


async def write_report(app: SupervisorApp, pilot, thread: str, tmp_path: Path) -> str:  # type: ignore[no-untyped-def]
    before = set(tmp_path.glob("t3tui-report-*.md"))
    assert app.query_one(EnvThreadTree).select_thread(thread)
    await pilot.pause()
    assert app.check_action("report", ()) is True  # shown, not hidden, with two environments
    await pilot.press("w")
    await until(lambda: isinstance(app.screen, ReportScreen), timeout=30, what="the report")
    [written] = set(tmp_path.glob("t3tui-report-*.md")) - before
    assert oct(written.stat().st_mode & 0o777) == "0o600"
    await pilot.press("escape")
    await pilot.pause()
    return written.name + "\n" + written.read_text()


async def test_report_key_writes_the_report_from_the_threads_own_environment(
        tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    async with contextlib.AsyncExitStack() as stack:
        laptop = await stack.enter_async_context(open_backend(options(tmp_path / "laptop")))
        devbox = await stack.enter_async_context(open_backend(options(tmp_path / "devbox")))
        source = MultiSource([env("laptop", laptop), env("devbox", devbox)])
        # devbox records its session to a file; laptop does not (its report rests on its
        # session's own recording, not kept, as a one-server app without --record)
        recorder = source.environments[1].source.record_to(str(tmp_path / "devbox.ndjson.gz"))
        stack.callback(recorder.close)
        app = SupervisorApp(source, config=TuiConfig(bell=False, confirm_timeout_s=15))
        app.report_dir = reports
        async with app.run_test(size=SIZE) as pilot:
            await until(lambda: synced(app, "laptop", 2) and synced(app, "devbox", 2),
                        timeout=30, what="both environments synchronized")
            seen: list[tuple[str, str]] = []
            ok = (await actions.settle(source, f"devbox:{PARENT}", clock=app.clock, timeout=15,
                                    report=lambda phase, text: seen.append((phase, text)))).ok
            assert ok, seen
            child = child_of(app, "devbox")
            raw_child = child.partition(":")[2]
            text = await write_report(app, pilot, child, reports)

            name, _, body = text.partition("\n")
            assert name.startswith("t3tui-report-devbox-"), name
            # the environment section names devbox's server, not laptop's
            assert environment_id_for(tmp_path / "devbox") in body
            assert environment_id_for(tmp_path / "laptop") not in body
            assert "| Server | t3tui reference backend" in body
            # the thread's real ids and titles: the qualified id is the app's, not the server's
            assert "devbox:" not in body and "laptop:" not in body
            assert raw_child in body and CHILD_TITLE in body and "Seed 004 parent" in body
            for section in ("## Environment", "## Lineage", "## Timeline (UTC)",
                            "## What was done"):
                assert section in body, section
            # what was done, with its outcome: the settle sent to devbox, as its server saw it
            done = body.partition("## What was done")[2]
            assert re.search(r"^\| [0-9:.]+ \| thread\.settle \| Seed 004 parent \| accepted \| "
                             r"[0-9:.]+ thread settled \|$", done, re.MULTILINE), done
            assert re.search(r"^[0-9:.]{12} .*command sent by t3tui: thread\.settle$", body,
                             re.MULTILINE)  # the UTC timeline

            # laptop's child (its id holds another provider session's): its own report
            laptop_child = child_of(app, "laptop")
            laptop_text = await write_report(app, pilot, laptop_child, reports)
            laptop_name, _, laptop_body = laptop_text.partition("\n")
            assert laptop_name.startswith("t3tui-report-laptop-")
            assert environment_id_for(tmp_path / "laptop") in laptop_body
            assert environment_id_for(tmp_path / "devbox") not in laptop_body
            assert laptop_child.partition(":")[2] in laptop_body and raw_child not in laptop_body
            assert "## Lineage" in laptop_body and "laptop:" not in laptop_body

            # an environment's own node is no thread: `w` is dimmed there and writes nothing
            tree = app.query_one(EnvThreadTree)
            tree.move_cursor(tree.env_nodes["devbox"])
            await pilot.pause()
            assert app.check_action("report", ()) is None
            await pilot.press("w")
            await pilot.pause()
            assert app.screen is app.main_screen
            assert len(list(reports.glob("t3tui-report-*.md"))) == 2
    assert read_recording(tmp_path / "devbox.ndjson.gz").lines


def test_env_path_inserts_the_name_before_the_suffixes(tmp_path: Path) -> None:
    assert env_path("runs/s.ndjson.gz", "devbox") == Path("runs/s-devbox.ndjson.gz")
    assert env_path("a.b/session", "laptop") == Path("a.b/session-laptop")
    assert env_path(".rec", "devbox") == Path(".rec-devbox")


def dead_env(name: str) -> EnvSource:
    # never run: record_to only opens the files
    return EnvSource(name, LiveSource(Target("http://127.0.0.1:9", Secret("x" * 20)),
                                      backoff=Backoff.fast()))


def test_record_with_several_environments_keeps_one_file_each(tmp_path: Path) -> None:
    source = MultiSource([dead_env("laptop"), dead_env("devbox")])
    recorders = source.record_to(str(tmp_path / "s.ndjson.gz"))
    recorders.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s-devbox.ndjson.gz",
                                                          "s-laptop.ndjson.gz"]
    assert all(oct(p.stat().st_mode & 0o777) == "0o600" for p in tmp_path.iterdir())


def test_record_with_a_taken_name_refuses_and_makes_nothing(tmp_path: Path) -> None:
    taken = tmp_path / "s-devbox.ndjson.gz"
    taken.write_bytes(b"keep me")
    source = MultiSource([dead_env("laptop"), dead_env("devbox")])
    with pytest.raises(RecordingExists, match=r"s-devbox\.ndjson\.gz exists"):
        source.record_to(str(tmp_path / "s.ndjson.gz"))
    assert [p.name for p in tmp_path.iterdir()] == ["s-devbox.ndjson.gz"]
    assert taken.read_bytes() == b"keep me"


async def test_report_without_record_on_one_server_rests_on_a_fresh_session(
        tmp_path: Path) -> None:
    # the fresh session begins after `w` is pressed: the report is as of its end, not empty
    reports = tmp_path / "reports"
    reports.mkdir()
    async with open_backend(options(tmp_path / "one")) as backend:
        source = LiveSource(Target(backend.url, Secret(backend.token)), backoff=Backoff.fast())
        app = SupervisorApp(source, config=TuiConfig(bell=False))
        app.report_dir = reports
        async with app.run_test(size=SIZE) as pilot:
            await until(lambda: app.view and len(app.view.rows) == 2, what="the pair")
            [child] = [r.id for r in app.view.rows if r.parent_id == PARENT]
            assert app.query_one("#tree").select_thread(child)  # type: ignore[attr-defined]
            await pilot.pause()
            await pilot.press("w")
            await until(lambda: isinstance(app.screen, ReportScreen), timeout=30,
                        what="the report")
    [written] = list(reports.glob("t3tui-report-*.md"))
    text = written.read_text()
    assert text.startswith(f"# Triage: {CHILD_TITLE}")
    assert f"`{child}`" in text and environment_id_for(tmp_path / "one") in text
    assert "Seed 004 parent" in text.partition("## Lineage")[2]


def test_the_app_refuses_a_taken_recording_name_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from t3tui.cli import main

    cfg = tmp_path / "config.toml"
    cfg.write_text("")
    monkeypatch.setenv("T3TUI_TOKEN_LAPTOP", "x" * 20)
    monkeypatch.setenv("T3TUI_TOKEN_DEVBOX", "y" * 20)
    (tmp_path / "s-devbox.ndjson.gz").write_bytes(b"keep me")
    assert main(["--config", str(cfg), "--env", "laptop=127.0.0.1:9", "--env",
                 "devbox=127.0.0.1:9", "--record", str(tmp_path / "s.ndjson.gz")]) == 2
    err = capsys.readouterr().err
    assert err == f"t3tui: {tmp_path / 's-devbox.ndjson.gz'} exists; a recording is never " \
                  "overwritten\n"
    assert not (tmp_path / "s-laptop.ndjson.gz").exists()
