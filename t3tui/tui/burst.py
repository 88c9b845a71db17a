"""A burst of notifications as a busy tree raises them: the `toasts` scenes and their tests.

Every notice goes the app's own way (`notices` -> `grouped` -> `notify`): threads finishing
together, one stuck, one blocked on an approval, two results that will not reach their
parents, and action outcomes, one of them twice.
"""

from __future__ import annotations

from datetime import datetime

from t3tui.model import Change, Finding
from t3tui.tui.view.notify import notices

EVENTS = frozenset({"stuck", "needs-input", "finished", "undelivered", "orphaned"})


def burst_changes(at: datetime) -> list[Change]:
    orphaned = Finding("orphaned_delivery", "crawl", "wake-disposed-while-running",
                       "still working but its delivery was disposed: the parent will not be told")
    undelivered = Finding("undelivered_result", "tests", "terminal-undelivered",
                          "completed 4m ago, delivery still pending")
    return [
        Change("state", "ready-1", "Ready check", "running", "stuck",
               "no progress for 2m49s", at),
        Change("state", "migrate", "Migrate DB", "running", "needs-input",
               "approval: run the migration", at),
        *(Change("state", tid, title, "running", "done", "done", at)
          for tid, title in (("lint", "Lint"), ("compile", "Compile"), ("docs", "Docs"))),
        Change("finding", "crawl", "Crawl", "running", "running", "", at, orphaned),
        Change("finding", "tests", "Tests", "done", "done", "", at, undelivered),
    ]


def raise_burst(app: object, at: datetime) -> None:
    """What the app shows after one batch of news and three action outcomes."""
    found = notices(burst_changes(at), events=EVENTS, quiet={}, now=at)
    app.renderer.pending_notices = found  # type: ignore[attr-defined]
    app.renderer.flush_notices()  # type: ignore[attr-defined]
    for _ in range(2):  # the same outcome twice: one toast, counted
        app.notify("no “PONG” before the deadline: unanswered",  # type: ignore[attr-defined]
                   title="check-in · Ready check", severity="warning", markup=False)
    app.notify("Stopping run … outcome unknown: the socket closed first",  # type: ignore[attr-defined]
               title="interrupt · Fan out", severity="warning", markup=False)
