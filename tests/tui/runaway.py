"""The real app on the reference backend's `runaway-provider` scenario (T3 #5587), its child
already flagged runaway: the app's detector dwell is shortened to a second."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from textual.widgets import Static

from t3tui.backend.testing import RunningBackend
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.model import DetectorConfig
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.sources.source import LiveSource
from tests.runaway import CHILD
from tests.tui.test_live import SIZE, row, text_of
from tests.tui.waiting import until


def screen_text(app: SupervisorApp) -> str:
    return " ".join(text_of(w) for w in app.screen.query(Static))


@contextlib.asynccontextmanager
async def app_on_runaway(backend: RunningBackend, *, confirm_timeout_s: float = 10.0,
                         notifications: bool = False) -> AsyncIterator[tuple[SupervisorApp, Any]]:
    """The app and its pilot, once the child's row carries the runaway flag."""
    source = LiveSource(Target(backend.url, Secret(backend.token)),
                        config=DetectorConfig(provider_after_interrupt_dwell_s=1.0),
                        backoff=Backoff.fast(), ping_interval=1.0)
    app = SupervisorApp(source, config=TuiConfig(bell=False, confirm_timeout_s=confirm_timeout_s))
    async with app.run_test(size=SIZE, notifications=notifications) as pilot:
        await until(lambda: (r := row(app, CHILD)) and "runaway" in r.overlays,
                    timeout=30, what="the child flagged runaway")
        yield app, pilot
