"""Reading a delegated task: its result text and the `task_status` shape (delegation.md §3.2)."""

from __future__ import annotations

from typing import Any

from t3tui.backend.engine.projection import ACTIVE_RUN, TERMINAL_RUN, TERMINAL_TASK, ThreadState

RUN_TO_TASK_STATUS = {
    "completed": "completed",
    "failed": "failed",
    "interrupted": "interrupted",
    "cancelled": "cancelled",
    "rolled_back": "cancelled",
}
SETTLED_DELIVERY = frozenset({"acknowledged", "delivered", "disposed"})


def failure(code: str, message: str) -> dict[str, Any]:
    """A structured MCP tool failure (delegation.md §3.5)."""
    return {"_tag": "OrchestratorMcpFailure", "code": code, "message": message}


def result_text(child: ThreadState, run: dict[str, Any]) -> str:
    """The published result, in upstream's order of preference."""
    if run["status"] == "failed":
        errors = [i for i in child.coll["turnItems"].values()
                  if i["type"] == "error" and i.get("runId") == run["id"]]
        if errors:
            return str((errors[-1].get("failure") or {}).get("message") or "Run failed.")
    texts = [m["text"] for m in child.coll["messages"].values()
             if m.get("role") == "assistant" and m.get("text", "").strip()
             and m.get("runId") == run["id"]]
    if texts:
        return texts[-1]
    if run["status"] == "completed":
        return "Child task completed without an assistant result."
    return f"Child task ended with status {RUN_TO_TASK_STATUS.get(run['status'], run['status'])}."


def has_open_children(state: ThreadState) -> bool:
    """Live or undelivered delegated work under this thread (blocks its own publication)."""
    for row in state.values("subagents"):
        if row["status"] not in TERMINAL_TASK:
            return True
        delivery = (row.get("completionDelivery") or {}).get("state", "pending")
        if delivery not in SETTLED_DELIVERY:
            return True
    return False


def result_transfer(parent: ThreadState, child_id: str) -> dict[str, Any] | None:
    return next((t for t in parent.values("contextTransfers")
                 if t["type"] == "subagent_result" and t["sourceThreadId"] == child_id), None)


def task_status(parent: ThreadState, row: dict[str, Any], child: ThreadState | None
                ) -> dict[str, Any]:
    """The `delegate_task` / `task_status` result for one task row."""
    runs = child.runs() if child is not None else []
    latest = runs[-1] if runs else None
    terminal_runs = [r for r in runs if r["status"] in TERMINAL_RUN]
    last_terminal = terminal_runs[-1] if terminal_runs else None
    published = row["status"] in TERMINAL_TASK
    if published:
        status = row["status"]
        work_state = "result_available"
    elif latest is not None and latest["status"] == "queued":
        status, work_state = "queued", "working"
    else:
        status = "running"
        work_state = ("waiting_for_children"
                      if latest is not None and latest["status"] in TERMINAL_RUN else "working")
    transfer = result_transfer(parent, row.get("childThreadId") or "")
    selection = ((child.thread or {}).get("modelSelection") if child is not None else None) or {}
    pending = child.pending_requests() if child is not None else []
    return {
        "taskId": row["id"],
        "childThreadId": row.get("childThreadId"),
        "childRunId": latest["id"] if latest else None,
        "childNodeId": row["id"],
        "status": status,
        "workState": work_state,
        "hasPendingChildRuns": any(r["status"] == "queued" for r in runs),
        "latestTerminalRunId": last_terminal["id"] if last_terminal else None,
        "latestTerminalStatus": (RUN_TO_TASK_STATUS.get(last_terminal["status"])
                                 if last_terminal else None),
        "latestTerminalSummary": (result_text(child, last_terminal)
                                  if last_terminal and child is not None else None),
        "latestTerminalResultContextTransferId": transfer["id"] if transfer else None,
        "providerInstanceId": selection.get("instanceId") or row.get("providerInstanceId"),
        "model": selection.get("model") or row.get("model"),
        "summary": row.get("result") if published else None,
        "resultContextTransferId": transfer["id"] if transfer and published else None,
        "pendingRuntimeRequestId": pending[0]["id"] if pending else None,
        "waitTimedOut": False,
    }


def child_is_settled(child: ThreadState) -> bool:
    """The child's own work is over: it has a terminal latest run and nothing active."""
    runs = child.runs()
    return bool(runs) and runs[-1]["status"] in TERMINAL_RUN and not any(
        r["status"] in ACTIVE_RUN for r in runs
    )
