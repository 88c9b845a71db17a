"""The terminal events of one run (protocol §9.3), shared by run endings and recovery."""

from __future__ import annotations

from typing import Any

from t3tui.backend.engine.core import Batch, Core


def end_run(core: Core, batch: Batch, thread_id: str, run_id: str, status: str,
            run_fields: dict[str, Any] | None = None, *, provider_turn_id: str | None = None,
            attempt_id: str | None = None, root_node_id: str | None = None,
            provider_thread_id: str | None = None, provider_side: bool = True) -> None:
    """Emit the terminal events of one run; entities not given are looked up on the run.
    `provider_side=False` leaves the provider turn and thread as they are (the provider has
    not stopped yet)."""
    state = core.threads[thread_id]
    run = state.coll["runs"][run_id]
    now = core.now()
    attempt = state.get("attempts", attempt_id or run.get("activeAttemptId"))
    turns = [t for t in state.values("providerTurns") if t["id"] == provider_turn_id
             or (attempt is not None and t.get("runAttemptId") == attempt["id"])] \
        if provider_side else []
    for pturn in turns:
        if pturn["status"] in ("running", "pending"):
            batch.add(thread_id, "provider-turn.updated",
                      {**pturn, "status": status, "completedAt": now}, run_id=run_id)
    turn_ids = {t["id"] for t in turns}
    for request in state.pending_requests():
        if request.get("providerTurnId") in turn_ids:
            batch.add(thread_id, "runtime-request.updated",
                      {**request, "status": "cancelled", "resolvedAt": now}, run_id=run_id)
    if attempt is not None:
        batch.add(thread_id, "run-attempt.updated",
                  {**attempt, "status": status, "completedAt": now}, run_id=run_id)
    node = state.get("nodes", root_node_id or run.get("rootNodeId"))
    if node is not None:
        batch.add(thread_id, "node.updated", {**node, "status": status, "completedAt": now},
                  run_id=run_id, node_id=node["id"])
    batch.add(thread_id, "run.updated", {**run, **(run_fields or {}), "status": status,
                                         "queuePosition": None, "completedAt": now},
              run_id=run_id)
    pthread = state.get("providerThreads", provider_thread_id or run.get("providerThreadId"))
    if provider_side and pthread is not None and pthread["status"] == "active":
        batch.add(thread_id, "provider-thread.updated",
                  {**pthread, "status": "idle", "updatedAt": now}, run_id=run_id)
