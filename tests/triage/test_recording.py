"""Recording: what the file holds, and what it never holds; reading it back, damaged or not."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import stat
import zlib
from pathlib import Path

import pytest

from t3tui.backend.testing import running_backend
from t3tui.client.backoff import Backoff
from t3tui.client.errors import ConnectionLost
from t3tui.client.recorder import FORMAT_VERSION, Recorder, RecordingExists
from t3tui.client.recording import RecordingError, read_recording
from t3tui.client.secret import resolve_target
from t3tui.client.session import Session
from t3tui.model import Supervisor
from tests.triage.flows import LiveRun
from tests.triage.reading import recording_when

pytestmark = pytest.mark.e2e


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines()]


def test_a_recording_has_a_header_every_frame_and_no_secret(seed004: LiveRun) -> None:
    path = seed004.path
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    header, *body = lines(path)
    assert header["t3tuiRecording"] == FORMAT_VERSION
    assert header["protocolVersion"] == 2
    assert header["server"]["label"] == "t3tui reference backend"
    assert header["startedAt"].endswith("Z") and header["t3tui"]
    assert "token" not in json.dumps(header).lower()
    out = [b["out"] for b in body if "out" in b]
    tags = {o.get("tag") for o in out}
    assert {"server.getConfig", "orchestration.subscribeShell", "orchestration.subscribeThread",
            "orchestration.dispatchCommand"} <= tags
    assert not any(o["_tag"] in ("Ack", "Ping") for o in out)  # liveness is not content
    assert any(isinstance(b.get("in"), dict) and b["in"]["_tag"] == "Chunk" for b in body)
    assert [b["note"] for b in body if "note" in b] == ["checkin"]
    assert [b["connection"] for b in body if "connection" in b] == ["open", "closed"]
    text = gzip.decompress(path.read_bytes()).decode()
    assert "wsTicket" not in text and "Bearer" not in text and "ticket" not in text.lower()


async def test_reconnects_show_the_gap_and_the_resume_and_no_token_is_written(
        tmp_path: Path) -> None:
    path = tmp_path / "gap.ndjson.gz"
    async with running_backend(scenario="settle-unsubscribe") as backend:
        recorder = Recorder(path, url=backend.url)
        session = Session(resolve_target(backend.url, backend.token), Supervisor(),
                          backoff=Backoff.fast(), recorder=recorder)
        runner = asyncio.create_task(session.run())
        try:
            await session.wait_synchronized(15)
            # readable while it grows, before any close: once the writer thread has flushed
            grown = await recording_when(path, lambda r: r.lines, what="the first lines")
            assert grown.warnings == []
            with pytest.raises(ConnectionLost):  # a defect: the server drops the socket
                await asyncio.wait_for(session.call("orchestration.noSuchMethod", {}), 5)
            await session.wait_synchronized(15)
        finally:
            await session.stop()
            await runner
            recorder.close()
        token = backend.token
    raw = gzip.decompress(path.read_bytes()).decode()
    assert token not in raw
    marks = [(b["connection"], b.get("reason", "")) for b in lines(path) if "connection" in b]
    assert [m[0] for m in marks] == ["open", "closed", "open", "closed"]
    assert "defect" in marks[1][1]
    resumed = [b["out"] for b in lines(path) if "out" in b
               and b["out"].get("tag") == "orchestration.subscribeShell"]
    assert "afterSequence" not in resumed[0]["payload"]
    assert resumed[1]["payload"]["afterSequence"] > 0  # the resume, after the gap


def test_a_recording_is_never_overwritten(seed004: LiveRun) -> None:
    before = seed004.path.read_bytes()
    with pytest.raises(RecordingExists, match="never overwritten"):
        Recorder(seed004.path)
    assert seed004.path.read_bytes() == before


def test_a_killed_recorder_loses_only_its_last_line(seed004: LiveRun, tmp_path: Path) -> None:
    whole = read_recording(seed004.path)
    data = gzip.decompress(seed004.path.read_bytes())
    cut = data[: len(data) - 40]  # the last line loses its end, as a kill mid-write does
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    damaged = tmp_path / "killed.ndjson.gz"
    damaged.write_bytes(packer.compress(cut) + packer.flush(zlib.Z_SYNC_FLUSH))  # no trailer
    partial = read_recording(damaged)
    assert partial.lines == whole.lines[:-1]
    assert len(partial.warnings) == 1 and "cut short" in partial.warnings[0]


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such file"),
    (b"", "is empty"),
    (b'{"description": "frames", "frames": []}\n', "not a t3tui recording"),
    (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not a t3tui recording"),
    (b"\x1f\x8b\x08\x00garbage", "not a t3tui recording"),
    (b'{"t3tuiRecording": 99, "t3tui": "9.0"}\n', "format 99"),
])
def test_bad_recordings_say_what_is_wrong_in_one_line(tmp_path: Path, content: bytes | None,
                                                      message: str) -> None:
    path = tmp_path / "bad.ndjson.gz"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(RecordingError, match=message) as caught:
        read_recording(path)
    assert "\n" not in str(caught.value)
