"""Command handlers (protocol §10): validate, then write the command's events in one batch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from t3tui.backend.engine import entities
from t3tui.backend.engine.core import Core
from t3tui.backend.engine.delegation import Delegation
from t3tui.backend.engine.delivery import Delivery
from t3tui.backend.engine.errors import CommandRejected
from t3tui.backend.engine.messages import dispatch_message
from t3tui.backend.engine.projection import EXECUTING_RUN, TERMINAL_RUN, ThreadState
from t3tui.backend.engine.runs import RunManager
from t3tui.backend.engine.sessions import SETTLE_REASON, SessionManager
from t3tui.backend.engine.shell import is_busy

ACCEPTING = frozenset({"accept", "acceptForSession", "acceptAlways"})
DECISIONS = frozenset({*ACCEPTING, "decline", "cancel"})


def require(command: dict[str, Any], *keys: str) -> None:
    missing = [k for k in keys if not isinstance(command.get(k), str) or not command.get(k)]
    if missing:
        raise CommandRejected(
            f"Command {command.get('type')} is missing {', '.join(missing)}.",
            detail="Required string fields: " + ", ".join(keys),
        )


class Commands:
    def __init__(self, core: Core, runs: RunManager, sessions: SessionManager,
                 delegation: Delegation, delivery: Delivery) -> None:
        self.core = core
        self.runs = runs
        self.sessions = sessions
        self.delegation = delegation
        self.delivery = delivery
        self._handlers: dict[str, Callable[[dict[str, Any]], int]] = {
            "thread.create": self.thread_create,
            "message.dispatch": self.message_dispatch,
            "thread.settle": self.settle,
            "thread.unsettle": self.unsettle,
            "run.interrupt": self.interrupt,
            "runtime-request.respond": self.respond,
            "provider-session.detach": self.detach,
            "delegated_task.request": self._delegated_request,
            "delegated_task.wake-policy": self._wake_policy,
            "delegated_task.completion-delivery.acknowledge": self._acknowledge,
            "delegated_task.completion-delivery.dispose": self._dispose,
        }

    def handle(self, command: dict[str, Any]) -> int:
        handler = self._handlers.get(command.get("type", ""))
        if handler is None:
            raise CommandRejected(f"Unsupported command type {command.get('type')}.")
        return handler(command)

    def thread(self, thread_id: str) -> ThreadState:
        state = self.core.threads.get(thread_id)
        if state is None or state.thread is None:
            raise CommandRejected(f"Unknown thread {thread_id}.")
        return state

    # threads

    def thread_create(self, command: dict[str, Any], *, batch: Any = None) -> int:
        require(command, "commandId", "threadId", "projectId")
        thread_id = command["threadId"]
        if thread_id in self.core.threads:
            raise CommandRejected(f"Thread {thread_id} already exists.")
        if command["projectId"] not in {p["id"] for p in self.core.projects}:
            raise CommandRejected(f"Unknown project {command['projectId']}.")
        selection = dict(command.get("modelSelection") or {})
        instance = selection.get("instanceId") or selection.get("provider")
        provider = self.sessions.providers.get(instance or "")
        if provider is None:
            known = ", ".join(sorted(self.sessions.providers))
            raise CommandRejected(f"Unknown provider instance {instance}.",
                                  detail=f"Known instances: {known}")
        selection = {"instanceId": instance, "model": selection.get("model")
                     or provider.config.model, **({"options": selection["options"]}
                                                  if selection.get("options") else {})}
        thread = entities.app_thread(
            thread_id=thread_id, project_id=command["projectId"],
            title=command.get("title") or "Untitled thread",
            created_by=command.get("createdBy", "user"),
            creation_source=command.get("creationSource", "web"), instance=instance,
            model_selection=selection, runtime_mode=command.get("runtimeMode", "full-access"),
            interaction_mode=command.get("interactionMode", "default"),
            branch=command.get("branch"), worktree_path=command.get("worktreePath"),
            lineage={"parentThreadId": None, "relationshipToParent": None,
                     "rootThreadId": thread_id},
            forked_from=None, now=self.core.now())
        if batch is not None:
            batch.add(thread_id, "thread.created", thread)
            return 0
        with self.core.batch(command["commandId"]) as b:
            b.add(thread_id, "thread.created", thread)
        return b.sequence

    def message_dispatch(self, command: dict[str, Any]) -> int:
        require(command, "commandId", "threadId", "messageId")
        state = self.thread(command["threadId"])
        if not isinstance(command.get("text"), str):
            raise CommandRejected("message.dispatch needs a text.")
        if command["messageId"] in state.coll["messages"]:
            raise CommandRejected(f"Message {command['messageId']} already exists.")
        with self.core.batch(command["commandId"]) as b:
            thread = state.thread or {}
            if thread.get("settledOverride") == "settled" and command.get("createdBy") == "user":
                # new user activity brings a settled thread back to the inbox
                b.add(command["threadId"], "thread.unsettled", {
                    **thread, "settledOverride": "active", "unsettledAt": self.core.now(),
                    "updatedAt": self.core.now()})
            dispatch_message(self.runs, b, command)
        return b.sequence

    def settle(self, command: dict[str, Any]) -> int:
        require(command, "commandId", "threadId")
        thread_id = command["threadId"]
        state = self.thread(thread_id)
        if is_busy(state):
            raise CommandRejected(
                f"Thread {thread_id} has active or blocked work and cannot be settled.")
        thread = state.thread or {}
        now = self.core.now()
        with self.core.batch(command["commandId"]) as b:
            b.add(thread_id, "thread.settled", {
                **thread, "settledOverride": "settled",
                "settledAt": thread.get("settledAt") or command.get("settledAt") or now,
                "pinnedAt": None, "pinOrderKey": None, "updatedAt": now})
            for session in state.live_sessions():
                self.sessions.detach(b, thread_id, session["id"], SETTLE_REASON)
        return b.sequence

    def unsettle(self, command: dict[str, Any]) -> int:
        require(command, "commandId", "threadId")
        if command.get("reason", "user") != "user":
            raise CommandRejected('thread.unsettle accepts only reason "user" from clients.')
        state = self.thread(command["threadId"])
        now = self.core.now()
        with self.core.batch(command["commandId"]) as b:
            b.add(command["threadId"], "thread.unsettled", {
                **(state.thread or {}), "settledOverride": "active", "unsettledAt": now,
                "updatedAt": now})
        return b.sequence

    # runs and requests

    def interrupt(self, command: dict[str, Any]) -> int:
        require(command, "commandId", "threadId", "runId")
        state = self.thread(command["threadId"])
        run = state.get("runs", command["runId"])
        if run is None:
            raise CommandRejected(
                f"Run {command['runId']} does not belong to thread {command['threadId']}.")
        if run["status"] in TERMINAL_RUN:
            raise CommandRejected(f"Run {run['id']} is not active ({run['status']}).")
        with self.core.batch(command["commandId"]) as b:
            self.delivery.stop_cohort(b, command["threadId"], run)
            self.runs.interrupt(b, command["threadId"], state.coll["runs"][run["id"]],
                                command.get("reason"))
        return b.sequence

    def respond(self, command: dict[str, Any]) -> int:
        require(command, "commandId", "threadId", "requestId")
        thread_id = command["threadId"]
        state = self.thread(thread_id)
        request = state.get("runtimeRequests", command["requestId"])
        if request is None:
            raise CommandRejected(f"Unknown runtime request {command['requestId']}.")
        if request["status"] != "pending":
            raise CommandRejected(f"Runtime request {request['id']} is {request['status']}.")
        decision = command.get("decision")
        if decision is None and isinstance(command.get("answers"), dict):
            decision = "accept"
        if decision not in DECISIONS:
            raise CommandRejected("runtime-request.respond needs a decision or answers.",
                                  detail="decision: " + ", ".join(sorted(DECISIONS)))
        binding = next((b for b in (self.runs.binding(r["id"]) for r in state.runs())
                        if b is not None and request["id"] in b.requests), None)
        if binding is None:
            raise CommandRejected(f"Runtime request {request['id']} can no longer be answered.")
        provider = self.sessions.provider_for(binding.instance)
        native = binding.requests[request["id"]]
        now = self.core.now()
        with self.core.batch(command["commandId"]) as b:
            resolved = {**request, "status": "resolved", "resolvedAt": now, "decision": decision}
            if command.get("answers") is not None:
                resolved["answers"] = command["answers"]
            b.add(thread_id, "runtime-request.updated", resolved, run_id=binding.run_id)
            node = state.get("nodes", request.get("nodeId"))
            if node is not None:
                b.add(thread_id, "node.updated", {**node, "status": "completed",
                                                  "completedAt": now}, run_id=binding.run_id,
                      node_id=node["id"])
            item = state.get("turnItems", f"item-{request['id']}")
            if item is not None:
                b.add(thread_id, "turn-item.updated", {**item, "status": "completed",
                                                       "completedAt": now, "updatedAt": now},
                      run_id=binding.run_id)
            b.after(lambda: provider.resolve_request(native, str(decision)))
        return b.sequence

    def detach(self, command: dict[str, Any]) -> int:
        require(command, "commandId", "threadId", "providerSessionId")
        thread_id, session_id = command["threadId"], command["providerSessionId"]
        state = self.thread(thread_id)
        if session_id not in {s["id"] for s in state.live_sessions()}:
            raise CommandRejected(
                f"Provider session {session_id} is not attached to thread {thread_id}.")
        with self.core.batch(command["commandId"]) as b:
            # the attachment is torn down: a turn on it can no longer report, so end it here
            for binding in self.runs.bindings_on_session(thread_id, session_id):
                run = state.coll["runs"][binding.run_id]
                if run["status"] in EXECUTING_RUN:
                    self.runs.abandon(b, binding)
            self.sessions.detach(b, thread_id, session_id,
                                 command.get("reason") or "Detached on request.")
        return b.sequence

    # delegation

    def _delegated_request(self, command: dict[str, Any]) -> int:
        require(command, "commandId", "parentThreadId", "parentRunId", "task")
        self.thread(command["parentThreadId"])
        if not isinstance(command.get("modelSelection"), dict):
            raise CommandRejected("delegated_task.request needs a modelSelection.")
        return self.delegation.request(command)

    def _wake_policy(self, command: dict[str, Any]) -> int:
        require(command, "commandId", "parentThreadId", "taskId")
        return self.delegation.set_wake_policy(command)

    def _acknowledge(self, command: dict[str, Any]) -> int:
        require(command, "commandId", "parentThreadId", "taskId")
        return self.delegation.acknowledge(command)

    def _dispose(self, command: dict[str, Any]) -> int:
        require(command, "commandId", "parentThreadId", "taskId")
        return self.delegation.dispose(command)
