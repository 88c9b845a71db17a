"""Publishing child results and waking parents (delegation.md §4 steps 6 to 8, §4.1).

Publication happens once per child (latched by the `subagent_result` transfer) when the child's
own work is over and it has no live or undelivered grandchild. The wake planner then applies
the §4.1 rules in order, per parent-run cohort.
"""

from __future__ import annotations

from typing import Any

from t3tui.backend.engine import entities
from t3tui.backend.engine.core import Core
from t3tui.backend.engine.ids import new_id
from t3tui.backend.engine.messages import post_user_message, steer
from t3tui.backend.engine.projection import ACTIVE_RUN, TERMINAL_TASK, ThreadState
from t3tui.backend.engine.runs import RunManager
from t3tui.backend.engine.tasks import (
    RUN_TO_TASK_STATUS,
    SETTLED_DELIVERY,
    child_is_settled,
    has_open_children,
    result_text,
    result_transfer,
)
from t3tui.backend.provider.faults import COHORT_WAKE_CAP

WAKE_CAP = 2  # settledDeliveryCount on builds with the cap (fault cohort-wake-cap)
OPEN_COHORT = {"disposition": "open", "nextGeneration": 1, "delivery": None}


def wake_text(task_ids: list[str]) -> str:
    """The wake message: only a pointer to `task_status` (delegation.md §4.1)."""
    if len(task_ids) == 1:
        tid = task_ids[0]
        return (f"Delegated task {tid} reached a terminal state. "
                f"Use task_status with taskId {tid} to read the result.")
    ids = ", ".join(task_ids)
    each = ", ".join(f"taskId {t}" for t in task_ids)
    return (f"Delegated tasks {ids} reached a terminal state. "
            f"Use task_status with {each} to read the results.")


def delivery_state(row: dict[str, Any]) -> str:
    return (row.get("completionDelivery") or {}).get("state", "pending")


class Delivery:
    def __init__(self, core: Core, runs: RunManager) -> None:
        self.core = core
        self.runs = runs

    # publication

    def finalize_ready(self) -> None:
        for child_id, child in list(self.core.threads.items()):
            parent_id = child.parent_id()
            parent = self.core.threads.get(parent_id or "")
            if parent is None or child.thread is None:
                continue
            row = parent.get("subagents", (child.thread.get("forkedFrom") or {}).get("nodeId"))
            if (row is None or row["status"] in TERMINAL_TASK
                    or result_transfer(parent, child_id) is not None
                    or not child_is_settled(child) or has_open_children(child)):
                continue
            self._publish(parent, row, child_id, child)

    def _publish(self, parent: ThreadState, row: dict[str, Any], child_id: str,
                 child: ThreadState) -> None:
        parent_id = row["threadId"]
        run = child.runs()[-1]
        status = RUN_TO_TASK_STATUS.get(run["status"], "completed")
        text = result_text(child, run)
        with self.core.batch() as b:
            now = self.core.now()
            row = {**row, "status": status, "result": text, "completedAt": now, "updatedAt": now,
                   "completionDelivery": row.get("completionDelivery")
                   or {"state": "pending", "observedByRunId": None}}
            b.add(parent_id, "subagent.updated", row, run_id=row.get("runId"), node_id=row["id"])
            node = parent.get("nodes", row["id"])
            if node is not None:
                b.add(parent_id, "node.updated", {**node, "status": status, "completedAt": now},
                      run_id=node.get("runId"), node_id=node["id"])
            card = parent.get("turnItems", f"item-{row['id']}")
            if card is not None:
                b.add(parent_id, "turn-item.updated",
                      {**card, "status": status, "result": text, "completedAt": now,
                       "updatedAt": now}, run_id=card.get("runId"))
            active = parent.executing_run()
            b.add(parent_id, "context-transfer.created", entities.context_transfer(
                kind="subagent_result", source_thread=child_id, target_thread=parent_id,
                source_instance=(child.thread or {}).get("providerInstanceId", ""),
                target_instance=(parent.thread or {}).get("providerInstanceId", ""),
                target_run_id=active["id"] if active else None, source_run_id=run["id"],
                now=now), run_id=row.get("runId"))

    # the wake planner

    def plan(self) -> None:
        for parent_id, parent in list(self.core.threads.items()):
            cohorts: dict[str, list[dict[str, Any]]] = {}
            for row in parent.values("subagents"):
                if row["status"] in TERMINAL_TASK and delivery_state(row) == "pending":
                    cohorts.setdefault(row.get("runId") or "", []).append(row)
            for run_id, rows in cohorts.items():
                self._plan_cohort(parent_id, parent, run_id, rows)

    def _plan_cohort(self, parent_id: str, parent: ThreadState, run_id: str,
                     rows: list[dict[str, Any]]) -> None:
        cohort_run = parent.get("runs", run_id)
        cohort = (cohort_run or {}).get("delegatedCompletion") or OPEN_COHORT
        thread = parent.thread or {}
        if thread.get("archivedAt") or thread.get("deletedAt") or cohort["disposition"] != "open":
            self._set_delivery(parent_id, rows, "disposed")
            return
        if cohort.get("nextGeneration", 1) > WAKE_CAP and self._capped(parent):
            return  # older builds: the cohort's wakes are used up; these stay pending (#12285)
        live = cohort_run is not None and cohort_run["status"] in ACTIVE_RUN
        offer = [r for r in rows
                 if not (live and (r.get("completionWake") or "settled_only") == "settled_only")]
        if not offer or cohort_run is None:
            return
        delivery = cohort.get("delivery")
        if delivery is not None:
            wake_run = next((r for r in parent.runs()
                             if r.get("userMessageId") == delivery.get("messageId")), None)
            if wake_run is not None and wake_run["status"] == "queued":
                self._join(parent_id, parent, cohort_run, wake_run, offer)
            return  # a wake is in flight: these wait for the next generation
        self._offer(parent_id, parent, cohort_run, offer)

    def _capped(self, parent: ThreadState) -> bool:
        instance = (parent.thread or {}).get("providerInstanceId")
        provider = self.runs.sessions.providers.get(str(instance))
        return provider is not None and COHORT_WAKE_CAP in provider.config.faults

    def _set_delivery(self, parent_id: str, rows: list[dict[str, Any]], state: str,
                      observed_by: str | None = None) -> None:
        with self.core.batch() as b:
            for row in rows:
                b.add(parent_id, "subagent.updated", {
                    **row, "updatedAt": self.core.now(),
                    "completionDelivery": {"state": state, "observedByRunId": observed_by}},
                    run_id=row.get("runId"), node_id=row["id"])

    def _offer(self, parent_id: str, parent: ThreadState, cohort_run: dict[str, Any],
               rows: list[dict[str, Any]]) -> None:
        cohort = cohort_run.get("delegatedCompletion") or OPEN_COHORT
        generation = cohort["nextGeneration"]
        task_ids = [r["id"] for r in rows]
        message_id = new_id("msg-wake")
        marker = {"parentRunId": cohort_run["id"], "generation": generation, "taskIds": task_ids}
        common = {"message_id": message_id, "text": wake_text(task_ids), "created_by": "agent",
                  "creation_source": "server", "delegated_completion": marker}
        with self.core.batch(new_id("command:server:wake")) as b:
            executing = parent.executing_run()
            steered = (executing is not None
                       and all(r.get("completionWake") == "always" for r in rows)
                       and steer(self.runs, b, parent_id, executing, common))
            if steered:
                assert executing is not None
                new_state, observed, delivery = "delivered", executing["id"], None
            else:
                post_user_message(self.runs, b, parent_id, front=True,
                                  intent="queued_turn" if parent.has_active_run() else "turn_start",
                                  **common)
                new_state, observed = "claimed", None
                delivery = {"generation": generation, "messageId": message_id,
                            "taskIds": task_ids}
            current = parent.coll["runs"][cohort_run["id"]]
            b.add(parent_id, "run.updated", {**current, "delegatedCompletion": {
                **cohort, "nextGeneration": generation + 1, "delivery": delivery}},
                run_id=current["id"])
            for row in rows:
                b.add(parent_id, "subagent.updated", {
                    **row, "updatedAt": self.core.now(),
                    "completionDelivery": {"state": new_state, "observedByRunId": observed}},
                    run_id=row.get("runId"), node_id=row["id"])

    def _join(self, parent_id: str, parent: ThreadState, cohort_run: dict[str, Any],
              wake_run: dict[str, Any], rows: list[dict[str, Any]]) -> None:
        cohort = cohort_run["delegatedCompletion"]
        delivery = cohort["delivery"]
        task_ids = [*delivery["taskIds"], *(r["id"] for r in rows)]
        message = parent.coll["messages"][delivery["messageId"]]
        with self.core.batch() as b:
            marker = {**message["delegatedCompletion"], "taskIds": task_ids}
            b.add(parent_id, "message.updated", {**message, "text": wake_text(task_ids),
                                                 "delegatedCompletion": marker,
                                                 "updatedAt": self.core.now()},
                  run_id=wake_run["id"])
            item = parent.get("turnItems", f"item-{message['id']}")
            if item is not None:
                b.add(parent_id, "turn-item.updated", {**item, "text": wake_text(task_ids)},
                      run_id=wake_run["id"])
            b.add(parent_id, "run.updated", {**cohort_run, "delegatedCompletion": {
                **cohort, "delivery": {**delivery, "taskIds": task_ids}}},
                run_id=cohort_run["id"])
            for row in rows:
                b.add(parent_id, "subagent.updated", {
                    **row, "completionDelivery": {"state": "claimed", "observedByRunId": None}},
                    run_id=row.get("runId"), node_id=row["id"])

    # hooks

    def on_run_terminal(self, batch: Any, thread_id: str, run: dict[str, Any]) -> None:
        """A finished wake run delivers its tasks (a cancelled one puts them back)."""
        state = self.core.threads[thread_id]
        message = state.get("messages", run.get("userMessageId")) or {}
        marker = message.get("delegatedCompletion")
        if not marker:
            return
        cohort_run = state.get("runs", marker.get("parentRunId"))
        cohort = (cohort_run or {}).get("delegatedCompletion") or {}
        delivery = cohort.get("delivery") or {}
        if cohort_run is None or delivery.get("generation") != marker.get("generation"):
            return
        new_state = "pending" if run["status"] == "cancelled" else "delivered"
        observed = None if new_state == "pending" else run["id"]
        for task_id in marker.get("taskIds", []):
            row = state.get("subagents", task_id)
            if row is not None and delivery_state(row) == "claimed":
                batch.add(thread_id, "subagent.updated", {
                    **row, "completionDelivery": {"state": new_state,
                                                  "observedByRunId": observed}},
                    run_id=row.get("runId"), node_id=row["id"])
        batch.add(thread_id, "run.updated", {**cohort_run, "delegatedCompletion": {
            **cohort, "delivery": None}}, run_id=cohort_run["id"])

    def stop_cohort(self, batch: Any, thread_id: str, run: dict[str, Any]) -> None:
        """A user Stop: the cohort stops and its undelivered results will wake nobody."""
        state = self.core.threads[thread_id]
        current = state.coll["runs"][run["id"]]
        cohort = current.get("delegatedCompletion")
        if cohort is not None and cohort.get("disposition") == "open":
            batch.add(thread_id, "run.updated", {
                **current, "delegatedCompletion": {**cohort, "disposition": "stopped"}},
                run_id=run["id"])
        for row in state.values("subagents"):
            if row.get("runId") == run["id"] and delivery_state(row) not in SETTLED_DELIVERY:
                batch.add(thread_id, "subagent.updated", {
                    **row, "completionDelivery": {"state": "disposed", "observedByRunId": None}},
                    run_id=run["id"], node_id=row["id"])
