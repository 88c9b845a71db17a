"""A read-only source that replays a recording on its own clock (`t3tui --replay FILE`).

The app's clock is `ReplaySource.clock`: every pane and every detector sees the moment the
replay stands at, so a finding appears when it appeared live. The source opens at the first
moment the tree was complete (the first `Live`), paused. Playing advances the replay clock by
the wall time that passed times the speed (x1, x10, x100); `step` goes to the next recorded
line, `next_finding` to the next moment a finding appears, `seek` anywhere (backwards starts
over from the first line: a new supervisor and new transcripts).
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Any, TypeVar

from t3tui.client.recording import Recording
from t3tui.client.replay import Replay, utc
from t3tui.client.replay_thread import thread_items
from t3tui.client.session import StreamUpdate
from t3tui.client.state import Connecting, ConnectionState, Failed, Live, Observable
from t3tui.model import DetectorConfig, Supervisor
from t3tui.tui.sources.readonly import ReadOnlySource
from t3tui.tui.sources.source import TeeSink
from t3tui.tui.sources.transcripts import MessageLine, TranscriptStore

T = TypeVar("T")
SPEEDS = (1, 10, 100)
FRAME_S = 1 / 20  # how often a playing replay moves its clock
FINDING_GAP_S = 0.25  # next_finding looks inside quiet gaps at least this long
PRECISION_S = 0.001
OPEN_LIMIT_S = 60.0  # a recording that never went live opens this far in


class ReplaySource(ReadOnlySource):
    """See the module docstring. `recording`: from `t3tui.client.recording.read_recording`."""

    refusal = "a replay is read-only: nothing was sent"

    def __init__(self, recording: Recording, *, config: DetectorConfig | None = None,
                 label: str | None = None) -> None:
        super().__init__()
        self.recording = recording
        self.label = label or f"replay: {recording.path.name}"
        self._config = config
        self.supervisor: Supervisor = Supervisor(config=config)
        self.transcripts = TranscriptStore()
        self.replay = Replay(recording, self._new_sink)
        self.state: Observable[ConnectionState] = Observable(Connecting())
        self.playing = False
        self.speed = SPEEDS[0]
        self._wake = asyncio.Event()
        self._stopped = False
        self.opened = False

    def _new_sink(self) -> TeeSink:
        self.supervisor = Supervisor(config=self._config)
        self.transcripts = TranscriptStore()
        return TeeSink(self.supervisor, self.transcripts)

    # -- the clock --

    def clock(self) -> datetime:
        return self.replay.now

    @property
    def start(self) -> float:
        return self.replay.start

    @property
    def end(self) -> float:
        return self.replay.end

    def open(self) -> None:
        """Go to the first moment the tree was complete: the session was live (or, when it
        never got there, OPEN_LIMIT_S into the recording)."""
        replay = self.replay
        limit = self.start + OPEN_LIMIT_S
        while not isinstance(replay.connection, Live):
            nxt = replay.next_time()
            if nxt is None or nxt > limit:
                break
            replay.step()
        self.opened = True
        self._changed()

    def seek(self, at: float) -> None:
        self.replay.seek(min(max(at, self.start), self.end))
        self._changed()

    def step(self) -> bool:
        """To the next recorded line; False at the end."""
        moved = self.replay.step() is not None
        self._changed()
        return moved

    def toggle(self) -> bool:
        if not self.playing and self.replay.clock >= self.end:
            self.replay.seek(self.start)  # play again from the top
        self.playing = not self.playing
        self._wake.set()
        self._changed()
        return self.playing

    def faster(self) -> int:
        self.speed = SPEEDS[(SPEEDS.index(self.speed) + 1) % len(SPEEDS)]
        self._changed()
        return self.speed

    def next_finding(self) -> tuple[float, Any] | None:
        """Move to the next moment a finding appears (kind, thread, rule not present before);
        (moment, finding), or None (the clock then stays where it was)."""
        replay = self.replay
        origin = replay.clock
        seen = {f.key for f in self.supervisor.view(replay.now).findings}
        last = replay.clock
        found = None
        while found is None:
            nxt = replay.next_time()
            stop = self.end if nxt is None else nxt
            if stop - last > FINDING_GAP_S:
                found = self._new_between(seen, last, stop - PRECISION_S)
                if found is not None:
                    break
            if nxt is None:
                break
            replay.seek(nxt)
            last = nxt
            found = self._new_at(seen, nxt)
        if found is None:
            replay.seek(origin)
            self._changed()
            return None
        replay.seek(found[0])
        self._changed()
        return found

    def _new_at(self, seen: set[Any], at: float) -> tuple[float, Any] | None:
        for finding in self.supervisor.view(utc(at)).findings:
            if finding.key not in seen:
                return at, finding
        return None

    def _new_between(self, seen: set[Any], lo: float, hi: float) -> tuple[float, Any] | None:
        """The state is constant in (lo, hi]: bisect to the first moment a new finding holds."""
        if self._new_at(seen, hi) is None:
            return None
        while hi - lo > PRECISION_S:
            mid = (lo + hi) / 2
            if self._new_at(seen, mid) is None:
                lo = mid
            else:
                hi = mid
        return self._new_at(seen, hi)

    async def history(self, thread_id: str) -> dict[str, MessageLine]:
        """The thread's messages as recorded up to the replay's moment (`History`): read
        from the recording again, off the event loop; the caller holds them while it needs
        them, nothing is kept here."""
        return await asyncio.to_thread(_recorded_messages, self.recording, thread_id,
                                       self.replay.index)

    async def triage_recording(self) -> Recording:
        """The whole recording: a report is made as of the replay clock."""
        return self.recording

    # -- Source --

    async def run(self) -> None:
        if not self.opened:
            self.open()
        last = time.monotonic()
        while not self._stopped:
            if not self.playing:
                self._wake.clear()
                await self._wake.wait()
                last = time.monotonic()
                continue
            await asyncio.sleep(FRAME_S)
            now = time.monotonic()
            target = self.replay.clock + (now - last) * self.speed
            last = now
            self.replay.seek(min(target, self.end))
            if self.replay.clock >= self.end:
                self.playing = False
            self._changed()

    def _changed(self) -> None:
        state = self.replay.connection
        if self.replay.clock >= self.end and isinstance(state, Failed | Connecting):
            state = Failed("end of the recording")
        self.state.set(state)
        self._notify(StreamUpdate(None, 1, True))

    async def stop(self) -> None:
        self._stopped = True
        self._wake.set()


def _recorded_messages(recording: Recording, thread_id: str, stop: int) -> dict[str, MessageLine]:
    store = TranscriptStore(bounded=False)
    for item in thread_items(recording, thread_id, stop):
        store.apply(thread_id, item)
    return store.get(thread_id).messages
