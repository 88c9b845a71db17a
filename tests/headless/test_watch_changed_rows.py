"""`watch` takes the app's changed-rows path: one whole view as its baseline, then only the
rows that changed, never a whole view and a diff of every row per batch (issue 25)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from rich.text import Text

from t3tui.backend.testing import running_backend, wait_until
from t3tui.client.secret import resolve_target
from t3tui.client.session import Session
from t3tui.headless.watch import Printer
from t3tui.model import Supervisor, SupervisorView
from tests.headless.test_commands_e2e import launch
from tests.headless.watching import watch_in_process

pytestmark = pytest.mark.e2e


class CountingViews(Supervisor):
    """The real supervisor, counting whole views (each derives and compares every row)."""

    views = 0

    def view(self, now: datetime) -> SupervisorView:
        self.views += 1
        return super().view(now)


class Collected(Printer):
    def __init__(self) -> None:
        super().__init__(ndjson=True)
        self.records: list[dict[str, Any]] = []

    def emit(self, record: dict[str, Any], text: Text) -> None:
        self.records.append(record)


async def test_watch_prints_changes_from_changed_rows_after_one_baseline_view() -> None:
    async with running_backend() as backend:
        quiet = [await launch(backend, "Reply READY", title=f"Quiet {i}") for i in range(3)]
        thread = await launch(backend, "Reply READY", title="Watched")
        await wait_until(lambda: all(backend.engine.shell_row(t).status == "completed"
                                     for t in (*quiet, thread)), timeout=15)
        sup = CountingViews()
        session = Session(resolve_target(backend.url, backend.token), sup)
        printer = Collected()
        async with watch_in_process(session, sup, printer, synchronized_s=15):
            await wait_until(lambda: sup.views, timeout=5)  # the baseline is taken
            await backend.engine.dispatch({
                "type": "message.dispatch", "commandId": "c-watch-rows", "createdBy": "user",
                "creationSource": "web", "threadId": thread, "messageId": "m-watch-rows",
                "text": "Run `sleep 1` then Reply PONG", "attachments": [],
                "dispatchMode": {"type": "start_immediately"},
            })
            await wait_until(lambda: any(r.get("threadId") == thread and r.get("from") == "running"
                                         for r in printer.records), timeout=20)
    states = [(r["threadId"], r["from"], r["to"]) for r in printer.records
              if r["kind"] == "state"]
    assert states[0][1] == "idle" and "running" in {to for _, _, to in states}
    assert {t for t, _, _ in states} == {thread}  # the quiet threads did not change
    assert sup.views == 1, f"{sup.views} whole views: watch derived every row per batch"
