"""The report and the replays of the seed 004 demo flow carry every finding the live view had,
with the moment it first appeared, and the commands t3tui sent (issue 21, item 4).

The demo flow: the app on the reference backend's demo scenario (real websockets, real agent
processes writing real Codex rollouts), nobody at the keys: the app settles "Settled by the
demo (seed 004)" and checks in on its child by itself; Codex answers PONG in its rollout and T3
never hears, so the child shows `⚑ unheard` (provider-finished-unheard, from the provider's own
record). `w` in the app, `t3tui report --replay`, `status --replay` and the app's `--replay`
must all carry it, at the moment it first appeared live, with the demo's own settle and
check-in under "What was done", naming the recording file the user asked for.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from t3tui.backend.provider.faults import SETTLE_DROPS_CHILD_SUBSCRIPTION
from t3tui.backend.testing import running_backend
from t3tui.client.backoff import Backoff
from t3tui.client.recording import read_recording
from t3tui.client.secret import Secret, Target
from t3tui.model.findings import PROVIDER_FINISHED_UNHEARD
from t3tui.proof.homes import ProofHomes
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.autopilot import find_pair
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.screens.report import ReportScreen
from t3tui.tui.sources.replay import ReplaySource
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.headless.cli import cli, server_args
from tests.proof.helpers import settle_and_send
from tests.triage.reading import recording_when
from tests.tui.waiting import until

# its waits on the demo allow up to 150 s: the suite's own bound per test (120 s) must be above
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]
SIZE = (160, 48)
# the live view looks at the records once a second and is sampled every 20 ms here
SLACK = timedelta(seconds=2.5)
RULE = "provider-finished-unheard"


def hms(at: datetime) -> str:
    return at.strftime("%H:%M:%S")


def close_to(iso: str | None, seen: datetime) -> bool:
    if iso is None:
        return False
    at = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return abs(at - seen) < SLACK


async def write_report(app: SupervisorApp, pilot, thread_id: str, folder: Path) -> str:
    """Select `thread_id`, press `w`, and the report file's text."""
    before = set(folder.glob("t3tui-report-*.md"))
    assert app.query_one(ThreadTree).select_thread(thread_id)
    await pilot.pause()
    await pilot.press("w")
    await until(lambda: isinstance(app.screen, ReportScreen), timeout=60, what="the report")
    [written] = set(folder.glob("t3tui-report-*.md")) - before
    text = written.read_text()
    await pilot.press("escape")
    await pilot.pause()
    return text


def assert_demo_report(text: str, seen: datetime, recording: str) -> None:
    """The Markdown carries the unheard finding first flagged when the live view saw it,
    the demo's settle and check-in, and names `recording`."""
    assert f"`{RULE}`" in text, text
    finding = text.partition(f"`{RULE}`")[2].partition("\n### ")[0]
    flagged = finding.partition("- first flagged: ")[2][:12]
    assert flagged and abs(datetime.combine(seen.date(), datetime.strptime(
        flagged, "%H:%M:%S.%f").time(), UTC) - seen) < SLACK, (flagged, seen, finding)
    plain = finding.replace("\\", "")  # Markdown escapes `_`
    assert "PONG" in plain and "task_complete" in plain, finding
    done = text.partition("## What was done")[2].partition("\n## ")[0]
    assert "sent no command" not in done, done
    assert "| thread.settle | Settled by the demo (seed 004) | accepted |" in done, done
    assert "| message.dispatch | Checked in after the settle | accepted |" in done, done
    assert "command sent by t3tui: thread.settle" in text
    assert "command sent by t3tui: message.dispatch (the check-in)" in text
    assert "session.ndjson.gz" not in text
    assert recording in text


async def test_the_demo_flow_report_and_replays_carry_unheard_and_the_demos_commands(
        tmp_path: Path) -> None:
    path = tmp_path / "demo.ndjson.gz"
    reports = tmp_path / "reports"
    reports.mkdir()
    async with running_backend(scenario="demo", scenario_in_background=True) as backend:
        source = LiveSource(Target(backend.url, Secret(backend.token)), backoff=Backoff.fast(),
                            proof=ProofHomes(backend.data_dir / "codex-home", None))
        recorder = source.record_to(str(path))
        app = SupervisorApp(source, config=TuiConfig(bell=False), autopilot=True)
        app.report_dir = reports
        try:
            async with app.run_test(size=SIZE) as pilot:
                def unheard() -> tuple[str, str, datetime] | None:
                    pair = find_pair(app.view) if app.view is not None else None
                    if pair is None:
                        return None
                    parent, child = pair
                    found = any(f.kind == PROVIDER_FINISHED_UNHEARD and f.thread_id == child.id
                                for f in app.view.findings)
                    return (parent.id, child.id, datetime.now(UTC)) if found else None

                parent, child, seen = await until(unheard, timeout=150,
                                                  what="⚑ unheard on the demo's child")
                live = await write_report(app, pilot, child, reports)
        finally:
            recorder.close()
    assert_demo_report(live, seen, "demo.ndjson.gz")

    # t3tui report --replay: the same finding at the same first moment, the same commands
    doc = await cli("report", "--replay", str(path), child, "--json")
    assert doc.code == 0, doc.err
    report = doc.json()
    [finding] = [f for f in report["findings"] if f["rule"] == RULE]
    assert finding["threadId"] == child and close_to(finding["flaggedAt"], seen), finding
    sent = {(a["command"], a["threadId"], a["outcome"]) for a in report["actions"]}
    assert {("thread.settle", parent, "accepted"),
            ("message.dispatch", child, "accepted")} <= sent, sent
    assert report["source"]["path"].endswith("demo.ndjson.gz")
    assert any(m["kind"] == "finding" and RULE in m["text"] and close_to(m["at"], seen)
               for m in report["timeline"]), report["timeline"]
    markdown = await cli("report", "--replay", str(path), child)
    assert markdown.code == 0, markdown.err
    assert_demo_report(markdown.out, seen, "demo.ndjson.gz")

    # status --replay: present at the end, absent well before its moment
    end = await cli("status", "--replay", str(path), "--json")
    assert (child, RULE) in {(f["threadId"], f["rule"]) for f in end.json()["findings"]}
    before = await cli("status", "--replay", str(path), "--json", "--at",
                       (seen - timedelta(seconds=5)).isoformat().replace("+00:00", "Z"))
    assert (child, RULE) not in {(f["threadId"], f["rule"]) for f in before.json()["findings"]}

    # the app's --replay: `f` reaches it at its moment, and `w` there carries it too
    replay = ReplaySource(read_recording(path))
    app = SupervisorApp(replay, config=TuiConfig(bell=False, toast=False), clock=replay.clock)
    app.report_dir = reports
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: replay.opened and app.view and app.view.rows, what="first tree")
        for _ in range(12):
            if any(f.kind == PROVIDER_FINISHED_UNHEARD for f in app.view.findings):
                break
            await pilot.press("f")
            await pilot.pause()
            app.refresh_view()
        assert any(f.kind == PROVIDER_FINISHED_UNHEARD and f.thread_id == child
                   for f in app.view.findings), app.view.findings
        assert abs(replay.clock() - seen) < SLACK
        replayed = await write_report(app, pilot, child, reports)
    assert_demo_report(replayed, seen, "demo.ndjson.gz")


async def test_without_record_w_rests_on_the_whole_session_and_leaves_no_file(
        tmp_path: Path) -> None:
    """The first hour's `t3tui` (no --record): `w` must not rest on a fresh short session
    (no commands, "first flagged" = the report's moment, a temporary file's name)."""
    reports = tmp_path / "reports"
    reports.mkdir()
    async with running_backend(scenario="demo", scenario_in_background=True) as backend:
        source = LiveSource(Target(backend.url, Secret(backend.token)), backoff=Backoff.fast(),
                            proof=ProofHomes(backend.data_dir / "codex-home", None))
        app = SupervisorApp(source, config=TuiConfig(bell=False), autopilot=True)
        app.report_dir = reports
        async with app.run_test(size=SIZE) as pilot:
            def unheard() -> tuple[str, datetime] | None:
                pair = find_pair(app.view) if app.view is not None else None
                found = pair is not None and any(
                    f.kind == PROVIDER_FINISHED_UNHEARD and f.thread_id == pair[1].id
                    for f in app.view.findings)
                return (pair[1].id, datetime.now(UTC)) if found else None

            child, seen = await until(unheard, timeout=150, what="⚑ unheard on the demo's child")
            own = source.recorder.path if source.recorder is not None else None
            text = await write_report(app, pilot, child, reports)
        url = backend.url
    assert_demo_report(text, seen, f"this session with {url}")
    assert str(own.parent) not in text  # no temporary path is named
    assert own is not None and not own.parent.exists()  # and none is left behind


async def test_t3tui_record_carries_what_the_provider_records_said(tmp_path: Path) -> None:
    """The headless recorder (the README's other way to record) notes the provider records
    too, so `report --replay` on its file shows `⚑ unheard`."""
    path = tmp_path / "cli.ndjson.gz"
    async with running_backend(scenario="settle-unsubscribe",
                               faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]) as backend:
        recording = asyncio.create_task(cli(
            "record", "-o", str(path), *server_args(backend), "--duration", "25",
            "--codex-home", str(backend.data_dir / "codex-home"), "--claude-home", "off",
            "--t3-home", "off"))
        await recording_when(path, lambda r: any(b'"Chunk"' in line for line in r.lines),
                             timeout=30, what="the recorder synchronized")
        child = await settle_and_send(backend, "Reply PONG")
        done = await recording
    assert done.code == 0, done.err
    doc = await cli("report", "--replay", str(path), child, "--json")
    assert doc.code == 0, doc.err
    [finding] = [f for f in doc.json()["findings"] if f["rule"] == RULE]
    assert finding["evidence"]["lastMessage"] == "PONG" and finding["flaggedAt"]
