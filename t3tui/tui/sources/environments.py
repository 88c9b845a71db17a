"""Several environments behind one `Source`: each its own `LiveSource`, read as one tree.

`MultiSource` gives the app what one source gives (see `source.Source`), over environments
that connect, fail and reconnect on their own: thread ids are qualified `NAME:ID`
(`model.environments`), and every action is sent to the thread's own environment with the id
that server knows. One environment that cannot be reached never holds up the others: each
runs in its own task, and its failure is its own `Failed` state.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from t3tui.client.errors import describe
from t3tui.client.outcome import CommandOutcome
from t3tui.client.recorder import Recorder, RecordingExists
from t3tui.client.session import StreamUpdate
from t3tui.client.settle_guard import SharedSession
from t3tui.client.state import (
    Connecting,
    ConnectionState,
    Failed,
    Live,
    Observable,
    Reconnecting,
    Stale,
    Syncing,
)
from t3tui.client.waiting import wait_for_update
from t3tui.model import CheckInVerdict
from t3tui.model.environments import Combined, qualify, unqualify
from t3tui.tui.sources.source import Clock, Source
from t3tui.tui.sources.transcripts import (
    History,
    HistoryUnavailable,
    MessageLine,
    Transcript,
    TranscriptStore,
)

T = TypeVar("T")
WAIT_TICK_S = 0.25
# A command's field naming the thread it acts on, and so the environment it goes to.
ROUTED_BY = ("thread_id", "parent_thread_id")
# The app's overall state: the most useful one any environment is in.
_BEST = (Live, Stale, Syncing, Connecting, Reconnecting, Failed)


@dataclass
class EnvSource:
    """One environment: its name and its own source (a `LiveSource`; recorded frames for
    the screenshots)."""

    name: str
    source: Source

    @property
    def state(self) -> ConnectionState:
        return self.source.state.value

    @property
    def url(self) -> str:
        return self.source.label


class CombinedTranscripts:
    """`TranscriptStore.get` over several environments, by qualified id."""

    def __init__(self, stores: dict[str, TranscriptStore]) -> None:
        self._stores = stores

    def get(self, qualified: str) -> Transcript:
        env, sep, thread_id = qualified.partition(":")
        store = self._stores.get(env) if sep else None
        return store.get(thread_id) if store is not None else Transcript()


def overall(states: Sequence[ConnectionState]) -> ConnectionState:
    """Live when any environment is live; Failed only when every one has failed."""
    for kind in _BEST:
        found = [s for s in states if isinstance(s, kind)]
        if found:
            if kind is Failed and len(states) > 1:
                return Failed("every environment is disconnected")
            return found[0]
    return Connecting()


class MultiSource:
    """The app's source for `--env NAME=URL ...` (see the module docstring)."""

    def __init__(self, environments: Sequence[EnvSource]) -> None:
        self.environments: tuple[EnvSource, ...] = tuple(environments)
        self._by_name = {e.name: e for e in self.environments}
        names = ", ".join(self._by_name)
        self.label = f"{len(self.environments)} environments ({names})"
        self.supervisor = Combined(((e.name, e.source.supervisor) for e in self.environments),
                                   down=self.down)
        self.transcripts = CombinedTranscripts(
            {e.name: e.source.transcripts for e in self.environments})
        self.state: Observable[ConnectionState] = Observable(self._overall())
        # every environment's state, so the app redraws when any one changes
        self.env_states: Observable[tuple[ConnectionState, ...]] = Observable(self._states())
        for env in self.environments:
            env.source.state.subscribe(lambda _state: self._states_changed())

    def _states(self) -> tuple[ConnectionState, ...]:
        return tuple(e.state for e in self.environments)

    def _overall(self) -> ConnectionState:
        return overall(self._states())

    def _states_changed(self) -> None:
        self.state.set(self._overall())
        self.env_states.set(self._states())

    def down(self) -> set[str]:
        """Environments whose data is not live now."""
        return {e.name for e in self.environments if not isinstance(e.state, Live)}

    def environment(self, qualified: str) -> tuple[EnvSource, str]:
        env, thread_id = unqualify(qualified)
        return self._by_name[env], thread_id

    # -- lifecycle --

    async def run(self) -> None:
        await asyncio.gather(*(self._run_one(e) for e in self.environments))

    async def _run_one(self, env: EnvSource) -> None:
        try:
            await env.source.run()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # this environment's failure, shown on its own node
            env.source.state.set(Failed(describe(exc)))

    async def stop(self) -> None:
        await asyncio.gather(*(e.source.stop() for e in self.environments),
                             return_exceptions=True)

    def record_to(self, path: str) -> Recorders:
        """`--record FILE`: one recording per environment, `FILE` with its name inserted
        (`env_path`), each a plain one-server recording that replays and reports on its own.
        Every name is checked before any file is made, so a taken one refuses the whole
        command and leaves nothing behind."""
        envs = [e for e in self.environments if hasattr(e.source, "record_to")]
        paths = {e.name: env_path(path, e.name) for e in envs}
        for taken in (p for p in paths.values() if p.exists()):
            raise RecordingExists(f"{taken} exists; a recording is never overwritten")
        made: list[Recorder] = []
        try:
            for e in envs:
                made.append(e.source.record_to(str(paths[e.name])))  # type: ignore[attr-defined]
        except OSError:
            Recorders(made).discard()
            raise
        return Recorders(made)

    # -- streams --

    def on_update(self, callback: Callable[[StreamUpdate], None]) -> Callable[[], None]:
        stops = [e.source.on_update(callback) for e in self.environments]

        def stop() -> None:
            for one in stops:
                one()

        return stop

    def open_thread(self, thread_id: str) -> bool:
        env, raw = self.environment(thread_id)
        return env.source.open_thread(raw)

    def close_thread(self, thread_id: str) -> None:
        env, raw = self.environment(thread_id)
        env.source.close_thread(raw)

    async def history(self, thread_id: str) -> dict[str, MessageLine]:
        """The thread's messages, read by its own environment (`History`), over its own
        connection, with the id that server knows."""
        env, raw = self.environment(thread_id)
        if not isinstance(env.source, History):
            raise HistoryUnavailable(f"the {env.name} environment cannot read them")
        return await env.source.history(raw)

    async def wait_until(self, predicate: Callable[[], T | None], timeout: float) -> T | None:
        """Re-check after any environment's update (and every WAIT_TICK_S s)."""
        return await wait_for_update(self.on_update, predicate, timeout, WAIT_TICK_S)

    # -- actions: to the thread's own environment, with the id its server knows --

    async def dispatch(self, command: Any, timeout: float) -> CommandOutcome:
        """To the environment of the thread the command is about: its `thread_id`, or for a
        delegated task's commands (dispose, acknowledge) its `parent_thread_id`."""
        field = next((f for f in ROUTED_BY if getattr(command, f, None) is not None), None)
        if field is None:
            raise ValueError(f"{type(command).__name__} names no thread to route it by")
        env, raw = self.environment(getattr(command, field))
        return await env.source.dispatch(command.model_copy(update={field: raw}), timeout)

    async def checkin(self, thread_id: str, *, text: str | None, expect: str | None,
                      timeout_s: float | None, clock: Clock,
                      queue_if_busy: bool = True) -> CheckInVerdict:
        env, raw = self.environment(thread_id)
        return await env.source.checkin(raw, text=text, expect=expect, timeout_s=timeout_s,
                                        clock=clock, queue_if_busy=queue_if_busy)

    async def settle_risks(self, thread_id: str,
                           descendants: Iterable[str]) -> list[SharedSession]:
        env, raw = self.environment(thread_id)
        mine = [unqualify(d)[1] for d in descendants if d.startswith(f"{env.name}:")]
        risks = await env.source.settle_risks(raw, mine)
        return [SharedSession(qualify(env.name, r.child_id), r.session_id) for r in risks]

    async def live_sessions(self, thread_id: str) -> list[str]:
        env, raw = self.environment(thread_id)
        return await env.source.live_sessions(raw)


def env_path(path: str, env: str) -> Path:
    """`runs/s.ndjson.gz` + devbox -> `runs/s-devbox.ndjson.gz`: the name goes before the
    first suffix of the file name (never into a directory name)."""
    given = Path(path)
    stem, dot, suffixes = given.name.partition(".")
    if not stem:  # a dotfile: `.rec` -> `.rec-devbox`
        return given.with_name(f"{given.name}-{env}")
    return given.with_name(f"{stem}-{env}{dot}{suffixes}")


class Recorders:
    """The recorders of `MultiSource.record_to`, closed together."""

    def __init__(self, recorders: Sequence[Recorder]) -> None:
        self.recorders = tuple(recorders)

    @property
    def paths(self) -> list[Path]:
        return [r.path for r in self.recorders]

    def close(self) -> None:
        for recorder in self.recorders:
            recorder.close()

    def discard(self) -> None:
        """Close and remove: the command was refused before anything was recorded."""
        self.close()
        for path in self.paths:
            with contextlib.suppress(OSError):
                path.unlink()


def is_multi(source: object) -> bool:
    return isinstance(source, MultiSource)

