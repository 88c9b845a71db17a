"""The user acted on every thread a command reached, not only the one named: a `watch --act`
elsewhere must leave alone each thread `interrupt --child/--parent/--tree` sent a command to
(policy/acted.py), over real sockets against the reference backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from t3tui.backend.testing import running_backend
from t3tui.policy.acted import ActedLog
from tests.headless.cli import cli, server_args

pytestmark = pytest.mark.e2e


def rows(doc: dict) -> dict[str, dict]:
    return {t["id"]: t for t in doc["threads"]}


async def test_interrupt_child_and_tree_note_every_thread_they_sent_to(acted_log: Path) -> None:
    # thread-retry waits on its child; thread-twins is done, its two children run
    async with running_backend(scenario="duplicate-delegation") as backend:
        args = server_args(backend)
        before = rows((await cli("status", "--json", *args)).json())
        [child] = [t["id"] for t in before.values() if t["parentId"] == "thread-retry"]
        twins = {t["id"] for t in before.values() if t["parentId"] == "thread-twins"}
        assert len(twins) == 2 and all(before[t]["activeRunId"] for t in twins)
        log = ActedLog(backend.url, acted_log)
        log.read()

        done = await cli("interrupt", "thread-retry", "--child", *args)
        assert done.code == 0, done
        assert child in {t for t, _at in log.read()}

        done = await cli("interrupt", "thread-twins", "--tree", *args)
        assert done.code == 0, done
        assert twins <= {t for t, _at in log.read()}


async def test_interrupt_parent_notes_the_parent_it_stopped(acted_log: Path) -> None:
    async with running_backend(scenario="duplicate-delegation") as backend:
        args = server_args(backend)
        before = rows((await cli("status", "--json", *args)).json())
        [child] = [t["id"] for t in before.values() if t["parentId"] == "thread-retry"]
        log = ActedLog(backend.url, acted_log)
        log.read()
        done = await cli("interrupt", child, "--parent", *args)
        assert done.code == 0, done
        assert "thread-retry" in {t for t, _at in log.read()}


async def test_the_apps_stop_the_tree_notes_every_thread_it_stops(acted_log: Path) -> None:
    from t3tui.client.backoff import Backoff
    from t3tui.client.secret import Secret, Target
    from t3tui.tui.app.app import SupervisorApp
    from t3tui.tui.app.config import TuiConfig
    from t3tui.tui.sources.source import LiveSource
    from t3tui.tui.widgets.thread_tree import ThreadTree
    from tests.tui.test_live import choose
    from tests.tui.waiting import until

    async with running_backend(scenario="duplicate-delegation") as backend:
        app = SupervisorApp(LiveSource(Target(backend.url, Secret(backend.token)),
                                       backoff=Backoff.fast()),
                            config=TuiConfig(bell=False, confirm_timeout_s=10))
        log = ActedLog(backend.url, acted_log)
        async with app.run_test(size=(160, 50)) as pilot:
            twins = await until(lambda: app.view is not None and (
                ids := {r.id for r in app.view.rows
                        if r.parent_id == "thread-twins" and r.active_run_id}) and len(ids) == 2
                and ids, timeout=30, what="the twins running")
            log.read()
            assert app.query_one(ThreadTree).select_thread("thread-twins")
            await pilot.pause()
            await pilot.press("I")
            await choose(pilot, "Stop 2")
            noted: set[str] = set()
            await until(lambda: twins <= (noted.update(t for t, _at in log.read()) or noted) or None,
                        timeout=10, what="both stopped children in the acted log")
