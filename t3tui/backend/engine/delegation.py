"""The `delegate_task` contract (delegation.md §3): the agent-side tools and the
`delegated_task.*` commands behind them."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Any

from t3tui.backend.engine import entities
from t3tui.backend.engine.config import (
    DEFAULT_WAIT_TIMEOUT_MS,
    MAX_WAIT_TIMEOUT_MS,
    MIN_WAIT_TIMEOUT_MS,
)
from t3tui.backend.engine.core import Core
from t3tui.backend.engine.errors import CommandRejected
from t3tui.backend.engine.ids import (
    child_thread_id_for,
    delegate_command_id,
    new_id,
    task_id_for,
)
from t3tui.backend.engine.messages import post_user_message
from t3tui.backend.engine.projection import TERMINAL_TASK, ThreadState
from t3tui.backend.engine.runs import RunManager
from t3tui.backend.engine.tasks import failure, task_status
from t3tui.backend.provider import ScriptedProvider

MAX_TASK_CHARS = 120_000
RUNTIME_RANK = {"approval-required": 0, "auto-accept-edits": 1, "auto": 2, "full-access": 3}
INTERACTION_RANK = {"plan": 0, "default": 1}
ROLES = ("implementation", "research", "review", "design", "test", "general")


class ToolFailure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.result = failure(code, message)


@dataclass
class AgentTools:
    """The MCP tools one running turn may call; the namespace is its provider session."""

    delegation: Delegation
    thread_id: str
    run_id: str
    session_id: str

    async def call_tool(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        try:
            if name == "delegate_task":
                return await self.delegation.delegate_task(self, args)
            if name == "task_status":
                return self.delegation.read_task(self, args)
            raise ToolFailure("invalid_request", f"Unknown tool {name}.")
        except ToolFailure as exc:
            return exc.result
        except CommandRejected as exc:
            return failure("orchestration_error", exc.message)


def _clamp_timeout(value: Any) -> int:
    if value is None:
        return DEFAULT_WAIT_TIMEOUT_MS
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ToolFailure("invalid_request", "timeoutMs must be a number.")
    return int(min(max(value, MIN_WAIT_TIMEOUT_MS), MAX_WAIT_TIMEOUT_MS))


def _narrower(requested: Any, parent: str, ranks: dict[str, int], code: str) -> str:
    if requested in (None, "inherit"):
        return parent
    if not isinstance(requested, str) or requested not in ranks:
        raise ToolFailure("invalid_request", f"Unknown mode {requested!r}.")
    if ranks[requested] > ranks.get(parent, max(ranks.values())):
        raise ToolFailure(code, f"A child may not be broader than its parent ({parent}).")
    return str(requested)


class Delegation:
    def __init__(self, core: Core, runs: RunManager, providers: dict[str, ScriptedProvider]
                 ) -> None:
        self.core = core
        self.runs = runs
        self.providers = providers

    def tools_for(self, thread_id: str, run_id: str, session_id: str) -> AgentTools:
        return AgentTools(self, thread_id, run_id, session_id)

    # agent side

    async def delegate_task(self, caller: AgentTools, args: dict[str, Any]) -> dict[str, Any]:
        parent = self.core.threads[caller.thread_id]
        run = parent.get("runs", caller.run_id)
        if run is None or run["status"] not in ("starting", "running"):
            raise ToolFailure("parent_not_active", "The caller has no live run.")
        command = self._request_command(caller, parent, run, args)
        mode = args.get("mode", "async")
        timeout_ms = _clamp_timeout(args.get("timeoutMs"))
        task_id = task_id_for(command["commandId"])
        if self.core.store.receipt(command["commandId"]) is None and (
            parent.get("subagents", task_id) is None
        ):
            self.request(command)
        if mode == "wait":
            return await self.wait(caller, task_id, timeout_ms)
        return self._status(caller.thread_id, task_id)

    def _request_command(self, caller: AgentTools, parent: ThreadState, run: dict[str, Any],
                         args: dict[str, Any]) -> dict[str, Any]:
        task = args.get("task")
        if not isinstance(task, str) or not task.strip():
            raise ToolFailure("invalid_request", "task must be a non-empty string.")
        if len(task) > MAX_TASK_CHARS:
            raise ToolFailure("invalid_request", f"task is longer than {MAX_TASK_CHARS} chars.")
        if args.get("mode", "async") not in ("async", "wait"):
            raise ToolFailure("invalid_request", "mode must be 'async' or 'wait'.")
        crid = args.get("clientRequestId")
        if crid is not None and (not isinstance(crid, str) or not crid or len(crid) > 256):
            raise ToolFailure("invalid_request", "clientRequestId must be 1-256 characters.")
        title = args.get("title")
        if title is not None and (not isinstance(title, str) or len(title) > 512):
            raise ToolFailure("invalid_request", "title must be a string of at most 512 chars.")
        role = args.get("role")
        if role is not None and role not in ROLES:
            raise ToolFailure("invalid_request", f"Unknown role {role!r}.")
        thread = parent.thread or {}
        if role not in (None, "general"):
            task = f"Act as the {role} sub-agent for this task.\n\n{task.strip()}"
        return {
            "type": "delegated_task.request",
            "commandId": delegate_command_id(caller.session_id, crid),
            "createdBy": "agent",
            "creationSource": "mcp",
            "parentThreadId": caller.thread_id,
            "parentRunId": run["id"],
            "parentNodeId": run.get("rootNodeId"),
            "task": task.strip(),
            "title": title,
            "modelSelection": self._target(thread, args.get("target")),
            "runtimeMode": _narrower(args.get("runtimeMode"), thread.get("runtimeMode", ""),
                                     RUNTIME_RANK, "runtime_mode_escalation_denied"),
            "interactionMode": _narrower(args.get("interactionMode"),
                                         thread.get("interactionMode", ""), INTERACTION_RANK,
                                         "interaction_mode_escalation_denied"),
            "completionWake": "settled_only" if args.get("mode") == "wait" else "always",
        }

    def _target(self, thread: dict[str, Any], target: Any) -> dict[str, Any]:
        parent_instance = thread["providerInstanceId"]
        if target is None:
            return dict(thread["modelSelection"])
        if not isinstance(target, dict):
            raise ToolFailure("invalid_request", "target must be an object.")
        instance = target.get("providerInstanceId")
        driver = target.get("driverKind")
        for name, value in (("providerInstanceId", instance), ("driverKind", driver),
                            ("model", target.get("model"))):
            if value is not None and not isinstance(value, str):
                raise ToolFailure("invalid_request", f"target.{name} must be a string.")
        if instance is None and driver is not None:
            names = [parent_instance] + [n for n in self.providers if n != parent_instance]
            instance = next((n for n in names if self.providers[n].config.driver == driver), None)
            if instance is None:
                raise ToolFailure("provider_unavailable", f"No provider serves driver {driver}.")
        instance = instance or parent_instance
        provider = self.providers.get(instance)
        if provider is None:
            raise ToolFailure("provider_unavailable", f"Provider {instance} is not available.")
        default = (thread["modelSelection"].get("model") if instance == parent_instance
                   else provider.config.model)
        model = target.get("model") or default
        if not provider.config.accepts_model(model):
            raise ToolFailure("model_unavailable", f"{instance} does not advertise {model}.")
        selection: dict[str, Any] = {"instanceId": instance, "model": model}
        options = target.get("options")
        if isinstance(options, dict):
            selection["options"] = [{"id": k, "value": v} for k, v in options.items()]
        elif isinstance(options, list):
            selection["options"] = options
        return selection

    def read_task(self, caller: AgentTools, args: dict[str, Any]) -> dict[str, Any]:
        """`task_status`: only for the caller's own tasks; reading a result acknowledges it."""
        task_id = args.get("taskId")
        parent = self.core.threads[caller.thread_id]
        if not isinstance(task_id, str) or parent.get("subagents", task_id) is None:
            raise ToolFailure("task_not_found", f"Task {task_id} not found.")
        result = self._status(caller.thread_id, task_id)
        self._acknowledge_if_done(caller, task_id)
        return result

    async def wait(self, caller: AgentTools, task_id: str, timeout_ms: int) -> dict[str, Any]:
        """Block until the task is terminal or needs a human, or the budget runs out."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        while True:
            result = self._status(caller.thread_id, task_id)
            if result["status"] in TERMINAL_TASK:
                self._acknowledge_if_done(caller, task_id)
                return result
            if result["pendingRuntimeRequestId"] is not None:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            await self.core.changed(remaining)
        # the child keeps running; make sure its completion still wakes the parent
        self.set_wake_policy({"type": "delegated_task.wake-policy",
                              "commandId": new_id("command:wait-timeout"),
                              "parentThreadId": caller.thread_id, "taskId": task_id,
                              "completionWake": "always"})
        return {**self._status(caller.thread_id, task_id), "waitTimedOut": True}

    def _status(self, parent_id: str, task_id: str) -> dict[str, Any]:
        parent = self.core.threads[parent_id]
        row = parent.coll["subagents"][task_id]
        return task_status(parent, row, self.core.threads.get(row.get("childThreadId") or ""))

    def _acknowledge_if_done(self, caller: AgentTools, task_id: str) -> None:
        row = self.core.threads[caller.thread_id].coll["subagents"][task_id]
        state = (row.get("completionDelivery") or {}).get("state", "pending")
        if row["status"] in TERMINAL_TASK and state in ("pending", "claimed"):
            self.acknowledge({"type": "delegated_task.completion-delivery.acknowledge",
                              "commandId": new_id("command:task-status"),
                              "parentThreadId": caller.thread_id, "taskId": task_id,
                              "observedByRunId": caller.run_id})

    # commands

    def request(self, command: dict[str, Any]) -> int:
        """`delegated_task.request`: task row, child thread and its first run, in one batch."""
        parent_id = command["parentThreadId"]
        parent = self._parent(parent_id)
        run = parent.get("runs", command.get("parentRunId"))
        if run is None or run["status"] not in ("starting", "running"):
            raise CommandRejected(f"Thread {parent_id} has no live run to delegate from.")
        cid = command["commandId"]
        task_id, child_id = task_id_for(cid), child_thread_id_for(cid)
        thread = parent.thread or {}
        selection = command["modelSelection"]
        instance = selection.get("instanceId") or thread["providerInstanceId"]
        if instance not in self.providers:
            raise CommandRejected(f"Provider {instance} is not available.")
        text = command["task"]
        title = command.get("title") or text.splitlines()[0][:60]
        wake = command.get("completionWake") or "settled_only"
        with self.core.batch(cid, {"taskId": task_id, "childThreadId": child_id}) as b:
            now = self.core.now()
            if run.get("delegatedCompletion") is None:
                run = {**run, "delegatedCompletion": {"disposition": "open", "nextGeneration": 1,
                                                      "delivery": None}}
                b.add(parent_id, "run.updated", run, run_id=run["id"])
            b.add(parent_id, "node.updated", entities.node(
                thread_id=parent_id, run_id=run["id"], kind="subagent", status="running",
                now=now, node_id=task_id, parent_node_id=command.get("parentNodeId"),
                root_node_id=run.get("rootNodeId")), run_id=run["id"], node_id=task_id)
            row = {
                "id": task_id, "threadId": parent_id, "runId": run["id"],
                "parentNodeId": command.get("parentNodeId"), "origin": "app_owned",
                "createdBy": command.get("createdBy", "agent"),
                "driver": self.providers[instance].config.driver, "providerInstanceId": instance,
                "providerThreadId": None, "childThreadId": child_id, "nativeTaskRef": None,
                "prompt": text, "title": title, "model": selection.get("model"),
                "completionWake": wake,
                "completionDelivery": {"state": "pending", "observedByRunId": None},
                "status": "running", "result": None, "startedAt": now, "completedAt": None,
                "updatedAt": now,
            }
            b.add(parent_id, "subagent.updated", row, run_id=run["id"], node_id=task_id)
            card_id = f"item-{task_id}"
            b.add(parent_id, "turn-item.updated", entities.turn_item(
                item_id=card_id, item_type="subagent", thread_id=parent_id, run_id=run["id"],
                ordinal=len(parent.coll["turnItems"]) + 1, status="running", now=now,
                title=title, node_id=task_id,
                fields={"subagentId": task_id, "origin": "app_owned", "driver": row["driver"],
                        "providerInstanceId": instance, "childThreadId": child_id,
                        "prompt": text, "result": None}), run_id=run["id"])
            b.add(child_id, "thread.created", entities.app_thread(
                thread_id=child_id, project_id=thread["projectId"], title=title,
                created_by="agent", creation_source="mcp", instance=instance,
                model_selection=selection, runtime_mode=command.get("runtimeMode", "full-access"),
                interaction_mode=command.get("interactionMode", "default"),
                branch=thread.get("branch"), worktree_path=thread.get("worktreePath"),
                lineage={"parentThreadId": parent_id, "relationshipToParent": "subagent",
                         "rootThreadId": (thread.get("lineage") or {}).get("rootThreadId")
                         or parent_id},
                forked_from={"type": "node", "nodeId": task_id}, now=now))
            child_run = post_user_message(
                self.runs, b, child_id, message_id=new_id("msg"), text=text, created_by="agent",
                creation_source="mcp", intent="turn_start")
            b.add(parent_id, "context-transfer.created", entities.context_transfer(
                kind="subagent_spawn", source_thread=parent_id, target_thread=child_id,
                source_instance=thread["providerInstanceId"], target_instance=instance,
                target_run_id=child_run["id"] if child_run else None, source_run_id=run["id"],
                now=now), run_id=run["id"])
        return b.sequence

    def _parent(self, parent_id: str) -> ThreadState:
        state = self.core.threads.get(parent_id)
        if state is None or state.thread is None:
            raise CommandRejected(f"Unknown thread {parent_id}.")
        return state

    def _row(self, command: dict[str, Any]) -> tuple[ThreadState, dict[str, Any]]:
        parent = self._parent(command["parentThreadId"])
        row = parent.get("subagents", command["taskId"])
        if row is None:
            raise CommandRejected(
                f"Task {command['taskId']} not found on thread {command['parentThreadId']}.")
        return parent, row

    def _update_row(self, command: dict[str, Any], changes: dict[str, Any]) -> int:
        _, row = self._row(command)
        with self.core.batch(command["commandId"]) as b:
            b.add(command["parentThreadId"], "subagent.updated",
                  {**row, **changes, "updatedAt": self.core.now()}, run_id=row.get("runId"),
                  node_id=row["id"])
        return b.sequence

    def set_wake_policy(self, command: dict[str, Any]) -> int:
        if command.get("completionWake") not in ("always", "settled_only"):
            raise CommandRejected("completionWake must be 'always' or 'settled_only'.")
        return self._update_row(command, {"completionWake": command["completionWake"]})

    def acknowledge(self, command: dict[str, Any]) -> int:
        _, row = self._row(command)
        state = (row.get("completionDelivery") or {}).get("state")
        if row.get("status") not in TERMINAL_TASK:
            raise CommandRejected(
                f"Task {row['id']} has no result to acknowledge (status {row.get('status')}).")
        if state in ("acknowledged", "disposed"):
            raise CommandRejected(f"Task {row['id']} completion delivery is already {state}.")
        return self._update_row(command, {"completionDelivery": {
            "state": "acknowledged", "observedByRunId": command.get("observedByRunId")}})

    def dispose(self, command: dict[str, Any]) -> int:
        _, row = self._row(command)
        state = (row.get("completionDelivery") or {}).get("state")
        if state in ("delivered", "acknowledged", "disposed"):
            # §4.1 rule 1: a task already told (or let go) has nothing left to dispose
            raise CommandRejected(f"Task {row['id']} completion delivery is already {state}.")
        observed = (row.get("completionDelivery") or {}).get("observedByRunId")
        return self._update_row(command, {"completionDelivery": {
            "state": "disposed", "observedByRunId": observed}})
