"""What a restarted engine does with work that was live when the previous process stopped.

Choice: provider processes do not survive a restart, so every run that was executing
(`preparing`/`starting`/`running`/`waiting`) is ended `interrupted`, with a `system_notice`
turn item saying why; its pending runtime requests are cancelled; every provider session still
marked live is updated to `stopped`. Queued runs stay queued and start normally. These events
are appended after the recovered history (commandId null), so every acknowledged command keeps
its original sequence. A clean shutdown does the same before it exits, so that the store
already says what happened; recovery then finds nothing left to do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from t3tui.backend.engine import entities
from t3tui.backend.engine.core import Batch, Core
from t3tui.backend.engine.ids import new_id
from t3tui.backend.engine.projection import EXECUTING_RUN
from t3tui.backend.engine.runend import end_run

RESTART_NOTICE = "The server restarted; this run was interrupted."
SHUTDOWN_NOTICE = "The server shut down; this run was interrupted."


def interrupt_live_runs(
    core: Core,
    batch: Batch,
    notice: str,
    on_terminal: Callable[[Batch, str, dict[str, Any]], None] | None,
) -> int:
    """End every executing run as interrupted; returns how many."""
    count = 0
    for thread_id, state in list(core.threads.items()):
        for run in state.runs():
            if run["status"] not in EXECUTING_RUN:
                continue
            item_id = new_id("item")
            batch.add(thread_id, "turn-item.updated", entities.turn_item(
                item_id=item_id, item_type="system_notice", thread_id=thread_id,
                run_id=run["id"], ordinal=len(state.coll["turnItems"]) + 1, status="completed",
                now=core.now(), completed=True, fields={"message": notice}), run_id=run["id"])
            end_run(core, batch, thread_id, run["id"], "interrupted")
            if on_terminal is not None:
                on_terminal(batch, thread_id, state.coll["runs"][run["id"]])
            count += 1
    return count


def wind_down(core: Core, notice: str,
              on_terminal: Callable[[Batch, str, dict[str, Any]], None] | None) -> None:
    """Interrupt live runs, expire pending requests, stop live sessions: one batch."""
    with core.batch() as b:
        interrupt_live_runs(core, b, notice, on_terminal)
        now = core.now()
        for thread_id, state in list(core.threads.items()):
            for request in state.pending_requests():
                b.add(thread_id, "runtime-request.updated",
                      {**request, "status": "expired", "resolvedAt": now})
            for session in state.live_sessions():
                b.add(thread_id, "provider-session.updated",
                      {**session, "status": "stopped", "updatedAt": now})
