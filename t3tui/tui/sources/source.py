"""Where the app's data comes from: a live server, or recorded frames.

The app never touches a socket. It talks to a `Source`: a supervisor (the model) and
transcripts that the source keeps fed, an observable connection state, update callbacks, and
the few I/O operations the actions need: a `Source` is a `t3tui.actions.Port`. `LiveSource` wraps the client's `Session`;
`t3tui.tui.sources.frames.FrameSource` replays recorded frames for snapshots and demos.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

from t3tui.client.backoff import Backoff
from t3tui.client.checkin import run_checkin
from t3tui.client.outcome import CommandOutcome
from t3tui.client.recorder import Recorder
from t3tui.client.recording import Recording, read_recording
from t3tui.client.secret import Target
from t3tui.client.session import Session, StreamUpdate
from t3tui.client.settle_guard import (
    SharedSession,
    fetch_projection,
    live_sessions,
    settle_risks,
)
from t3tui.client.state import ConnectionState, Failed, Observable
from t3tui.client.triage import snapshot_recording
from t3tui.model import CheckInVerdict, DetectorConfig, Supervisor
from t3tui.proof.feed import follow_records
from t3tui.proof.homes import OFF, ProofHomes
from t3tui.proof.records import RecordReader
from t3tui.tui.sources.transcripts import HistoryCache, MessageLine, TranscriptStore

log = logging.getLogger(__name__)
T = TypeVar("T")
BACKEND_POLL_S = 0.5  # how often an embedded backend is checked for life
Clock = Callable[[], datetime]


class Source(Protocol):
    """What the app needs from its data source (see the module docstring)."""

    label: str
    supervisor: Supervisor
    transcripts: TranscriptStore
    state: Observable[ConnectionState]

    async def run(self) -> None:
        """Connect and keep the supervisor fed until `stop()` (or a fatal error: raises)."""

    async def stop(self) -> None: ...

    def on_update(self, callback: Callable[[StreamUpdate], None]) -> Callable[[], None]: ...

    def open_thread(self, thread_id: str) -> bool: ...

    def close_thread(self, thread_id: str) -> None: ...

    async def dispatch(self, command: Any, timeout: float) -> CommandOutcome: ...

    async def wait_until(self, predicate: Callable[[], T | None], timeout: float) -> T | None: ...

    async def checkin(
        self, thread_id: str, *, text: str | None, expect: str | None,
        timeout_s: float | None, clock: Clock, queue_if_busy: bool = True,
    ) -> CheckInVerdict: ...

    async def settle_risks(
        self, thread_id: str, descendants: Iterable[str]
    ) -> list[SharedSession]: ...

    async def live_sessions(self, thread_id: str) -> list[str]:
        """Ids of the provider sessions attached to the thread now (for a forced stop)."""


class TeeSink:
    """The session's sink: the supervisor first, then the transcripts; anything else the
    client asks of its sink (rows, check-in bookkeeping) goes to the supervisor."""

    def __init__(self, supervisor: Supervisor, transcripts: TranscriptStore) -> None:
        self._supervisor = supervisor
        self._transcripts = transcripts

    def apply_shell(self, item: Any) -> None:
        self._supervisor.apply_shell(item)

    def apply_thread(self, thread_id: str, item: Any) -> None:
        self._supervisor.apply_thread(thread_id, item)
        self._transcripts.apply(thread_id, item)

    def forget_thread(self, thread_id: str) -> None:
        self._supervisor.forget_thread(thread_id)
        self._transcripts.forget(thread_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._supervisor, name)


class LiveSource:
    """A real T3 V2 server through the client's `Session`.

    The session is always recorded: to the `--record` file (`record_to`), else to a private
    file of its own (removed when the source stops), so that a report (`w`) rests on the
    whole session: the commands this app sent, what the proof layer found (noted in the
    recording as it changes) and the moment each finding first appeared.
    """

    def __init__(
        self,
        target: Target,
        *,
        config: DetectorConfig | None = None,
        label: str | None = None,
        backoff: Backoff | None = None,
        ping_interval: float = 5.0,
        backend_exit: Callable[[], int | None] | None = None,
        proof: ProofHomes = OFF,
        recorder: Recorder | None = None,
    ) -> None:
        """`backend_exit`: the exit code of a backend this process started (None while it
        runs); once it has one, retrying cannot help, so the source ends and says so.
        `proof`: where to read the providers' own session records (OFF: not at all)."""
        self.label = label or target.base_url
        self.proof = proof
        self._backend_exit = backend_exit
        self.supervisor = Supervisor(config=config)
        self.transcripts = TranscriptStore()
        self._history = HistoryCache()  # older messages read for a transcript, kept
        self._session = Session(
            target,
            TeeSink(self.supervisor, self.transcripts),
            backoff=backoff,
            ping_interval=ping_interval,
            recorder=recorder,
        )
        self.state = self._session.state
        self.recorder = recorder
        self._own_recording: str | None = None  # the folder of the session's own recording

    async def run(self) -> None:
        if self.recorder is None:
            self._keep_own_recording()
        records = None
        if self.proof.enabled:
            records = asyncio.create_task(
                follow_records(self.supervisor, RecordReader(self.proof), note=self._session.note),
                name="t3tui-records")
        try:
            await self._run()
        finally:
            if records is not None:
                records.cancel()
                await asyncio.gather(records, return_exceptions=True)
            self._drop_own_recording()

    def _keep_own_recording(self) -> None:
        """Record the session to a private temporary file (a folder only this user reads);
        without one (no temporary space) a report falls back to a fresh short session."""
        folder = None
        try:
            folder = tempfile.mkdtemp(prefix="t3tui-session-")
            self.recorder = Recorder(Path(folder) / "session.ndjson.gz",
                                     url=self._session.target.base_url)
        except OSError as exc:
            log.warning("no recording of this session for its reports: %s", exc)
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            return
        self._own_recording = folder
        self._session.recorder = self.recorder

    def _drop_own_recording(self) -> None:
        """Close and remove it. Not awaited off the loop: its writer keeps up as it goes, so
        little is left to drain, and the app's shutdown is not handed back the loop here."""
        folder, self._own_recording = self._own_recording, None
        if folder is None:
            return
        recorder, self.recorder = self.recorder, None
        self._session.recorder = None
        if recorder is not None:
            recorder.close()
        shutil.rmtree(folder, ignore_errors=True)

    async def _run(self) -> None:
        if self._backend_exit is None:
            await self._session.run()
            return
        session = asyncio.create_task(self._session.run())
        try:
            while not session.done():
                code = self._backend_exit()
                if code is not None:
                    await self._session.stop()
                    await asyncio.wait({session})
                    # last, so that it replaces the session's own Failed("stopped")
                    self.state.set(Failed(f"the demo backend exited (code {code})"))
                    return
                await asyncio.wait({session}, timeout=BACKEND_POLL_S)
            await session
        finally:
            if not session.done():  # cancelled: the app is closing
                await self._session.stop()
                session.cancel()

    async def stop(self) -> None:
        await self._session.stop()

    @property
    def url(self) -> str:
        """The server's base URL (what the user's actions are noted under: policy.acted)."""
        return self._session.target.base_url

    def record_to(self, path: str) -> Recorder:
        """Record this session to a new file from its first connection on (before `run`)."""
        self.recorder = Recorder(path, url=self._session.target.base_url)
        self._session.recorder = self.recorder
        return self.recorder

    async def triage_recording(self) -> Recording:
        """What a report rests on: this session's recording so far (once its writer has
        caught up), else a short recording of a fresh session (the server's snapshots)."""
        if self.recorder is not None:
            recorder = self.recorder
            await asyncio.to_thread(recorder.sync)
            return await asyncio.to_thread(read_recording, recorder.path)
        return await snapshot_recording(self._session.target)

    def report_source(self) -> dict[str, Any]:
        """How a report names what it rests on (`t3tui.words.report`)."""
        if self.recorder is not None and self._own_recording is None:
            return {"kind": "recording", "path": str(self.recorder.path)}
        return {"kind": "session" if self._own_recording else "live",
                "url": self._session.target.base_url}

    def on_update(self, callback: Callable[[StreamUpdate], None]) -> Callable[[], None]:
        return self._session.on_update(callback)

    def open_thread(self, thread_id: str) -> bool:
        return self._session.open_thread(thread_id)

    def close_thread(self, thread_id: str) -> None:
        self._session.close_thread(thread_id)

    async def dispatch(self, command: Any, timeout: float) -> CommandOutcome:
        return await self._session.dispatch_until_known(command, timeout)

    async def wait_until(self, predicate: Callable[[], T | None], timeout: float) -> T | None:
        return await self._session.wait_until(predicate, timeout)

    async def checkin(
        self, thread_id: str, *, text: str | None, expect: str | None,
        timeout_s: float | None, clock: Clock, queue_if_busy: bool = True,
    ) -> CheckInVerdict:
        return await run_checkin(
            self._session, thread_id, text=text, expect=expect, timeout_s=timeout_s, clock=clock,
            queue_if_busy=queue_if_busy,
        )

    async def settle_risks(
        self, thread_id: str, descendants: Iterable[str]
    ) -> list[SharedSession]:
        return await settle_risks(self._session, thread_id, descendants)

    async def live_sessions(self, thread_id: str) -> list[str]:
        return await live_sessions(self._session, thread_id)

    async def history(self, thread_id: str) -> dict[str, MessageLine]:
        """Every message of the thread, read from the server (`getThreadProjection`) unless
        a kept read still reaches the held ones: what an open transcript shows beyond the
        ones held (raises `ClientError`)."""
        kept = self._history.get(thread_id, self.transcripts.get(thread_id))
        if kept is not None:
            return kept
        projection = await fetch_projection(self._session, thread_id)
        if projection is None:
            return {}
        read = TranscriptStore.messages_of(projection)
        self._history.put(thread_id, read)
        return read
