"""Reading a recording that is still being written: its writer thread flushes on its own
schedule, so a test waits (with a deadline) until the file holds what it needs, never for a
moment."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from t3tui.backend.testing import wait_until
from t3tui.client.recording import Recording, RecordingError, read_recording


async def recording_when(path: Path, wanted: Callable[[Recording], Any], *,
                         timeout: float = 15.0, what: str = "") -> Recording:
    """The recording at `path` once `wanted(recording)` holds (an empty or not yet created
    file is not yet a recording); `TimeoutError` naming `what` after `timeout` s."""

    def read() -> Recording | None:
        try:
            recording = read_recording(path)
        except RecordingError:
            return None
        return recording if wanted(recording) else None

    return await wait_until(read, timeout=timeout, interval=0.02,
                            what=what or f"{path.name} to hold what the test needs")
