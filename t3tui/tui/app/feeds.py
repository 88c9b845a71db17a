"""The app's workers on its source: they only post messages (messages.py), never touch UI.

A controller the app holds (`app.feeds`); `start()` as the app loads, before its screen is
composed (the handshake and the snapshot's transfer wait on the server: the app's start
overlaps them; what the workers post meanwhile waits in the app's queue, and the renderer
draws nothing until the tree is there). Each runs in its own exclusive
worker group, as `@work` methods of the app would: the source itself, its connection state,
each environment's state (several environments), and a wake per stream update.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from t3tui.client.errors import FatalError, describe
from t3tui.tui.app.messages import ConnectionChanged, SourceEnded, StreamChanged
from t3tui.tui.app.port import AppPort


class Feeds:
    def __init__(self, app: AppPort) -> None:
        self.app = app

    def start(self) -> None:
        self._run(self.run_source, "source")
        self._run(self.watch_connection, "connection")
        if getattr(self.app.source, "env_states", None) is not None:
            self._run(self.watch_environments, "environments")
        self._run(self.watch_stream, "stream")

    def _run(self, job: Callable[[], Coroutine[Any, Any, None]], group: str) -> None:
        self.app.run_worker(job, name=job.__name__, group=group, exclusive=True,
                            exit_on_error=False)

    async def run_source(self) -> None:
        try:
            await self.app.source.run()
        except asyncio.CancelledError:
            raise
        except FatalError as exc:  # a refused token: exit 2 with one line (quitting.py)
            self.app.quitting.failed_for_good(describe(exc))
        except Exception as exc:  # every failure becomes a banner, never a traceback
            self.app.post_message(SourceEnded(describe(exc)))

    async def watch_connection(self) -> None:
        async for state in self.app.source.state.changes():
            self.app.post_message(ConnectionChanged(state))

    async def watch_environments(self) -> None:
        """With several environments: redraw when any one's state changes (the overall
        state may stay the same, e.g. live while one of them drops)."""
        async for _states in self.app.source.env_states.changes():
            self.app.post_message(ConnectionChanged(self.app.source.state.value))

    async def watch_stream(self) -> None:
        wake = asyncio.Event()
        stop = self.app.source.on_update(lambda _update: wake.set())
        try:
            while True:
                await wake.wait()
                wake.clear()
                self.app.post_message(StreamChanged())
        finally:
            stop()
