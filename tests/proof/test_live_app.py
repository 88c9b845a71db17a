"""The live app reads the provider records next to the stream: the seed 004 child shows
`provider_finished_unheard` with its evidence in the detail pane (Pilot, real sockets, real
agent processes, real rollout files)."""

from __future__ import annotations

import pytest

from t3tui.backend.provider.faults import SETTLE_DROPS_CHILD_SUBSCRIPTION
from t3tui.backend.testing import running_backend
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.model import DetectorConfig
from t3tui.model.findings import PROVIDER_FINISHED_UNHEARD
from t3tui.proof.homes import ProofHomes
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.panes import DetailPane
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.proof.helpers import settle_and_send
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e


async def test_the_app_shows_provider_finished_unheard_once_with_its_evidence() -> None:
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]
    ) as backend:
        source = LiveSource(
            Target(backend.url, Secret(backend.token)),
            config=DetectorConfig(provider_unheard_dwell_s=1.0),
            backoff=Backoff.fast(), ping_interval=1.0,
            proof=ProofHomes(backend.data_dir / "codex-home", None),
        )
        app = SupervisorApp(source, config=TuiConfig(bell=False))
        async with app.run_test(size=(160, 50)) as pilot:
            await until(lambda: app.view is not None and len(app.view.rows) == 2, what="the tree")
            child = await settle_and_send(backend, "Reply PONG")

            def unheard():
                found = [f for f in app.view.findings if f.kind == PROVIDER_FINISHED_UNHEARD]
                return found or None

            [finding] = await until(unheard, timeout=20, what="provider_finished_unheard")
            assert finding.thread_id == child
            assert app.query_one(ThreadTree).select_thread(child)
            await pilot.pause()
            detail = await until(lambda: (t := str(app.query_one(DetailPane).render()))
                                 and "T3 never heard" in t and t, what="the detail pane")
            assert "PONG" in detail and "provider's own record ended the turn" in detail
            await pilot.press("v")  # the raw evidence: the file and its line
            raw = await until(lambda: (t := str(app.query_one(DetailPane).render()))
                              and "recordFile" in t and t, what="the raw evidence")
            assert "task_complete" in raw and "recordLine" in raw
