"""Replay gives the same findings at the same moments as the live run it recorded, headless
(`status --replay --at`); bad recordings are one line and exit 2 for every command."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from t3tui.client.recording import read_recording
from t3tui.client.replay import Replay
from t3tui.client.triage import TriageRun
from t3tui.model import Supervisor
from tests.headless.cli import cli
from tests.triage.flows import LiveRun

pytestmark = pytest.mark.e2e
# the live sampler looks every 50 ms on a loaded machine; the recording stamps a frame just
# before the client applies it
SLACK = timedelta(seconds=1.0)


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def finding_keys(document: dict) -> set[tuple[str, str, str]]:
    return {(f["kind"], f["threadId"], f["rule"]) for f in document["findings"]}


@pytest.mark.parametrize("flow", ["seed004", "seed000"])
async def test_replay_flags_what_live_flagged_at_the_same_moments(
        flow: str, request: pytest.FixtureRequest) -> None:
    live: LiveRun = request.getfixturevalue(flow)
    assert live.first_seen, "the live run flagged nothing"
    run = TriageRun(read_recording(live.path))
    for key, seen in live.first_seen.items():
        data = run.gather(key[1], run.recording.end)
        flagged = datetime.fromtimestamp(data.flagged_at[key], UTC)
        assert abs(flagged - seen) < SLACK, (key, flagged, seen)
        replayed = {f.key: f for f in data.view.findings}
        assert replayed[key].since == live.since[key]  # the same evidence, to the microsecond
        # status --replay --at: present from its moment on, absent just before it
        after = await cli("status", "--replay", str(live.path), "--at", iso(seen), "--json")
        assert after.code == 1 and key in finding_keys(after.json()), after.err
        before_at = flagged - timedelta(milliseconds=50)
        before = await cli("status", "--replay", str(live.path), "--at", iso(before_at),
                           "--json")
        assert before.code in (0, 1) and key not in finding_keys(before.json())
    # the whole live run: nothing flagged live that the replay misses, and nothing more
    end = Replay(read_recording(live.path), Supervisor)
    end.seek(live.end.timestamp() if live.end else end.end)
    assert {f.key for f in end.sink.view(end.now).findings} <= set(live.first_seen)


async def test_status_replay_reads_times_and_says_what_is_wrong(seed004: LiveRun) -> None:
    path = str(seed004.path)
    first = await cli("status", "--replay", path, "--at", "start", "--json")
    assert first.code == 0 and first.json()["threads"] == []
    table = await cli("status", "--replay", path, "--at", "+2")
    assert table.code == 0 and "Seed 004 parent" in table.out
    clock = datetime.fromtimestamp(read_recording(path).end, UTC).strftime("%H:%M:%S.%f")
    same = await cli("status", "--replay", path, "--at", clock, "--json")
    assert same.code == 1 and same.json()["findings"]
    for bad, says in (("-1h", "before the recording starts"), ("yesterday", "an ISO time"),
                      ("+x", "not an offset")):
        result = await cli("status", "--replay", path, "--at", bad)
        assert (result.code, result.out) == (2, ""), result
        assert says in result.err and result.err.count("\n") == 1
    # past the end (the README's `--at +2m` on a shorter recording): the end, said once
    end = await cli("status", "--replay", path, "--json")
    for past in ("+2m", "+1h"):
        late = await cli("status", "--replay", path, "--at", past, "--json")
        assert late.code == end.code == 1 and late.json() == end.json(), late.err
        assert late.err.count("\n") == 1 and "past the end of the recording" in late.err
        assert late.err.startswith(f"t3tui: --at {past} is past the end") and "+" in late.err
    # from the end, as the README writes it (`--at -30s`, not only `--at=-30s`)
    near_end = await cli("status", "--replay", path, "--at", "-0.5s", "--json")
    assert near_end.code in (0, 1) and near_end.err == "", near_end.err
    report = await cli("report", "--replay", path, "--at", "+2m", seed004.child, "--json")
    assert report.code == 0 and report.json()["at"] == end.json()["generatedAt"], report.err
    assert "past the end of the recording" in report.err
    no_replay = await cli("status", "--at", "+1", "--url", "http://127.0.0.1:9", "--token=x")
    assert no_replay.code == 2 and "--at needs --replay" in no_replay.err


@pytest.mark.parametrize(("content", "says"), [
    (None, "no such file"),
    (b"", "is empty"),
    (b"not json at all\n", "not a t3tui recording"),
    (b'{"t3tuiRecording": 2, "t3tui": "9.9"}\n', "upgrade t3tui"),
])
async def test_bad_recordings_exit_2_with_one_line(tmp_path: Path, content: bytes | None,
                                                   says: str) -> None:
    path = tmp_path / "bad.ndjson.gz"
    if content is not None:
        path.write_bytes(content)
    for argv in (["status", "--replay", str(path)], ["report", "--replay", str(path)]):
        result = await cli(*argv)
        assert (result.code, result.out) == (2, ""), result
        assert says in result.err and result.err.count("\n") == 1
        assert "Traceback" not in result.err


async def test_a_truncated_recording_replays_with_a_warning(seed004: LiveRun,
                                                            tmp_path: Path) -> None:
    import gzip
    data = gzip.decompress(seed004.path.read_bytes())
    cut = tmp_path / "cut.ndjson.gz"
    cut.write_bytes(gzip.compress(data[:-25]))
    result = await cli("status", "--replay", str(cut), "--json")
    assert result.code in (0, 1) and result.json()["threads"]
    assert result.err.startswith("t3tui: warning:") and "cut short" in result.err
