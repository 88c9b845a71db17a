"""`t3tui watch` ended by a signal (a service manager's SIGTERM, a closed terminal's SIGHUP)
exits 128+N after cleaning up, as the shell's convention says: the recording closed whole,
no traceback. A real `t3tui watch` process against a reference backend."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import signal
import sys
from pathlib import Path

import pytest

from t3tui.backend.testing import running_backend, wait_until

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
async def test_watch_ended_by_a_signal_exits_128_plus_n_with_its_recording_closed(
        signum: int, tmp_path: Path) -> None:
    record = tmp_path / "watch.t3rec.gz"
    async with running_backend(scenario="demo") as backend:
        env = dict(os.environ, T3TUI_URL=backend.url, T3TUI_TOKEN=backend.token)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "t3tui", "watch", "--ndjson", "--record", str(record),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
        assert proc.stdout is not None and proc.stderr is not None
        try:
            async with asyncio.timeout(60):
                first = json.loads(await proc.stdout.readline())
            assert (first["kind"], first["state"]) == ("connection", "live"), first
            await wait_until(lambda: record.exists() and record.stat().st_size > 0, timeout=30,
                             what="the recording started")
            proc.send_signal(signum)
            async with asyncio.timeout(30):
                code = await proc.wait()
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        err = (await proc.stderr.read()).decode()
    assert code == 128 + signum, (code, err)
    assert "Traceback" not in err, err
    assert gzip.decompress(record.read_bytes()).count(b"\n") > 1  # closed: a whole gzip stream
