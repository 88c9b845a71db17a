"""Run lifecycle: start queued runs on a provider, record its notifications, end runs.

Event order follows protocol §9.3. A provider's notifications are the only way a turn's
progress and completion reach the orchestration: a notification that is never delivered (seed
004) leaves the run `running`, exactly as upstream.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from t3tui.backend.engine import entities
from t3tui.backend.engine.core import Batch, Core
from t3tui.backend.engine.ids import new_id
from t3tui.backend.engine.runend import end_run
from t3tui.backend.engine.sessions import SessionManager
from t3tui.backend.engine.turns import TurnBinding, TurnProgress
from t3tui.backend.provider import Notification
from t3tui.backend.provider.agent import ToolHost
from t3tui.protocol import native_id_of

log = logging.getLogger(__name__)


class RunManager(TurnProgress):
    """Runs from queued to terminal on their provider; notifications of bound turns."""

    def __init__(
        self,
        core: Core,
        sessions: SessionManager,
        *,
        drain_seconds: float,
        tools_for: Callable[[str, str, str], ToolHost],
    ) -> None:
        self.core = core
        self.sessions = sessions
        self.drain_seconds = drain_seconds
        self.tools_for = tools_for
        self.on_terminal: Callable[[Batch, str, dict[str, Any]], None] | None = None
        self._bindings: dict[str, TurnBinding] = {}
        self._by_run: dict[str, TurnBinding] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._asked: set[str] = set()  # runs with a run_interrupt_request not yet answered
        # turns whose run the orchestration already ended (end-run-first interrupts)
        self._lingering: dict[str, TurnBinding] = {}
        # observers of every notification the orchestration receives: (app thread id, note)
        self.taps: list[Callable[[str, Notification], None]] = []

    def binding(self, run_id: str) -> TurnBinding | None:
        return self._by_run.get(run_id)

    # scheduling

    def create_run(self, batch: Batch, thread_id: str, run: dict[str, Any]) -> None:
        position = run.get("queuePosition")
        if position is not None and position < 1:
            # `queuePosition` is a PositiveInt: a run put in front of position 1 moves the
            # queue down instead of taking position 0
            for queued in self.core.threads[thread_id].queued_runs():
                batch.add(thread_id, "run.updated",
                          {**queued, "queuePosition": (queued.get("queuePosition") or 1)
                           + 1 - position}, run_id=queued["id"])
            run = {**run, "queuePosition": 1}
        batch.add(thread_id, "run.created", run, run_id=run["id"])

    def new_run(self, thread_id: str, message_id: str, *, front: bool = False,
                restart_of: str | None = None) -> dict[str, Any]:
        """A queued run entity (not yet added) for the thread's queue."""
        state = self.core.threads[thread_id]
        positions = [r.get("queuePosition") or 0 for r in state.queued_runs()]
        position = (min(positions) - 1 if front else max(positions) + 1) if positions else 1
        return entities.run(thread=state.thread or {}, ordinal=len(state.coll["runs"]) + 1,
                            message_id=message_id, queue_position=position, now=self.core.now(),
                            restart_of=restart_of)

    def start_ready(self) -> None:
        """Start the head of every idle thread's queue."""
        for thread_id, state in list(self.core.threads.items()):
            if state.executing_run() is None and state.queued_runs():
                self.start(thread_id, state.queued_runs()[0])

    def start(self, thread_id: str, run: dict[str, Any]) -> None:
        state = self.core.threads[thread_id]
        message = state.get("messages", run.get("userMessageId")) or {}
        run_id = run["id"]
        instance = (state.thread or {}).get("providerInstanceId", "")
        if instance not in self.sessions.providers:
            self._fail_unstartable(thread_id, run, f"Provider {instance} is not available.")
            return
        with self.core.batch() as b:
            now = self.core.now()
            run = {**run, "status": "starting", "startedAt": now, "queuePosition": None}
            b.add(thread_id, "run.updated", run, run_id=run_id)
            provider, session_id, pthread = self.sessions.bind(b, thread_id, run)
            attempt_id = new_id("attempt")
            root = entities.node(thread_id=thread_id, run_id=run_id, kind="root_turn",
                                 status="running", now=now, provider_thread_id=pthread["id"])
            native_turn = provider.new_turn_ref()
            pturn = {"id": new_id("pturn"), "providerThreadId": pthread["id"],
                     "nodeId": root["id"], "runAttemptId": attempt_id,
                     "nativeTurnRef": entities.provider_ref(provider.config.driver, native_turn),
                     "ordinal": run["ordinal"],
                     "status": "running", "startedAt": now, "completedAt": None,
                     "tokenUsage": {"usedTokens": 0, "updatedAt": now}}
            b.add(thread_id, "run-attempt.created", {
                "id": attempt_id, "runId": run_id, "attemptOrdinal": 1, "rootNodeId": root["id"],
                "providerInstanceId": provider.name, "providerThreadId": pthread["id"],
                "providerTurnId": pturn["id"], "reason": "initial", "status": "running",
                "startedAt": now, "completedAt": None}, run_id=run_id)
            scope = entities.checkpoint_scope(
                thread_id=thread_id, run_id=run_id, node_id=root["id"],
                provider_thread_id=pthread["id"], cwd=str(provider.cwd), now=now)
            b.add(thread_id, "checkpoint-scope.created", scope, run_id=run_id)
            b.add(thread_id, "node.updated", {**root, "providerTurnId": pturn["id"],
                                              "checkpointScopeId": scope["id"]},
                  run_id=run_id, node_id=root["id"])
            b.add(thread_id, "run.updated", {**run, "status": "running", "rootNodeId": root["id"],
                                             "activeAttemptId": attempt_id,
                                             "providerThreadId": pthread["id"]}, run_id=run_id)
            b.add(thread_id, "provider-turn.updated", pturn, run_id=run_id)
            binding = TurnBinding(thread_id, run_id, attempt_id, root["id"], pturn["id"],
                                  pthread["id"], provider.name, session_id, native_turn,
                                  provider.config.driver, scope["id"])
            self._bindings[native_turn] = binding
            self._by_run[run_id] = binding
            tools = self.tools_for(thread_id, run_id, session_id)
            env = {"T3TUI_THREAD_ID": thread_id, "T3TUI_RUN_ID": run_id}
            native_thread = native_id_of(pthread["nativeThreadRef"]) or ""
            b.after(lambda: provider.start_turn(session_id, native_thread,
                                                native_turn, message.get("text", ""), tools, env))

    def _fail_unstartable(self, thread_id: str, run: dict[str, Any], reason: str) -> None:
        with self.core.batch() as b:
            item_id = new_id("item")
            b.add(thread_id, "turn-item.updated", entities.turn_item(
                item_id=item_id, item_type="error", thread_id=thread_id, run_id=run["id"],
                ordinal=self._item_ordinal(thread_id, item_id), status="failed",
                now=self.core.now(), completed=True, title="Error",
                fields={"failure": {"class": "provider_error", "message": reason,
                                    "code": "provider_unavailable", "retryable": False}}),
                run_id=run["id"])
            end_run(self.core, b, thread_id, run["id"], "failed")
            if self.on_terminal is not None:
                self.on_terminal(b, thread_id, self.core.threads[thread_id].coll["runs"][run["id"]])

    # provider notifications

    def on_notification(self, note: Notification) -> None:
        binding = self._bindings.get(note.native_turn)
        if binding is None:
            lingering = self._lingering.get(note.native_turn)
            if lingering is not None and note.kind in ("completed", "failed", "interrupted"):
                self._wind_down(lingering, "interrupted" if note.kind == "interrupted" else note.kind)
            return  # a turn this orchestration no longer tracks (torn down or recovered)
        for tap in self.taps:
            tap(binding.thread_id, note)
        handler = {
            "item": self._on_item, "message": self._on_message, "request": self._on_request,
            "completed": self._on_completed, "failed": self._on_failed,
            "interrupted": self._on_interrupted,
        }.get(note.kind)
        if handler is not None:
            handler(binding, note.data)

    def _on_completed(self, binding: TurnBinding, data: dict[str, Any]) -> None:
        state = self.core.threads[binding.thread_id]
        with self.core.batch() as b:
            now = self.core.now()
            pturn = state.get("providerTurns", binding.provider_turn_id) or {}
            b.add(binding.thread_id, "provider-turn.updated",
                  {**pturn, "status": "completed", "completedAt": now}, run_id=binding.run_id)
            run = state.get("runs", binding.run_id) or {}
            b.add(binding.thread_id, "run.updated", {**run, "status": "waiting"},
                  run_id=binding.run_id)
            checkpoint = entities.checkpoint(
                thread_id=binding.thread_id, run_id=binding.run_id,
                run_ordinal=run.get("ordinal"), scope_id=binding.scope_id,
                node_id=binding.root_node_id, now=now)
            checkpoint_id = checkpoint["id"]
            b.add(binding.thread_id, "checkpoint.captured", checkpoint, run_id=binding.run_id)
        # the drain: a short post-completion `waiting`, as upstream finalizes the turn
        self._timers[binding.run_id] = asyncio.get_running_loop().call_later(
            self.drain_seconds, self._finish_drain, binding, checkpoint_id)

    def _finish_drain(self, binding: TurnBinding, checkpoint_id: str) -> None:
        self._timers.pop(binding.run_id, None)
        if self._by_run.get(binding.run_id) is not binding:
            return
        with self.core.batch() as b:
            self._end(b, binding, "completed", {"checkpointId": checkpoint_id})

    def _on_failed(self, binding: TurnBinding, data: dict[str, Any]) -> None:
        with self.core.batch() as b:
            now = self.core.now()
            item_id = f"item-{binding.provider_turn_id}-error"
            b.add(binding.thread_id, "turn-item.updated", entities.turn_item(
                item_id=item_id, item_type="error", thread_id=binding.thread_id,
                run_id=binding.run_id, ordinal=self._item_ordinal(binding.thread_id, item_id),
                status="failed", now=now, completed=True, title="Error",
                fields={"failure": {"class": "provider_error", "message": data["message"],
                                    "code": None, "retryable": False}}), run_id=binding.run_id)
            self._end(b, binding, "failed")

    def _on_interrupted(self, binding: TurnBinding, data: dict[str, Any]) -> None:
        with self.core.batch() as b:
            if binding.run_id in self._asked:
                self._interrupt_result(b, binding.thread_id, binding.run_id)
            self._end(b, binding, "interrupted")

    def _interrupt_result(self, batch: Batch, thread_id: str, run_id: str,
                          message: str = "Run interrupted.") -> None:
        """The stop landed: the `run_interrupt_result` item that answers the request item."""
        self._asked.discard(run_id)
        item_id = new_id("item")
        batch.add(thread_id, "turn-item.updated", entities.turn_item(
            item_id=item_id, item_type="run_interrupt_result", thread_id=thread_id,
            run_id=run_id, ordinal=self._item_ordinal(thread_id, item_id), status="completed",
            now=self.core.now(), completed=True, fields={"message": message}), run_id=run_id)

    def turn_stopped(self, native_turn: str) -> None:
        """A detach stopped this turn and its processes are gone: a turn whose run had already
        ended (it ran on after its interrupt) is recorded as ended now. Its own notification
        is not heard: the detach unloaded its native thread."""
        lingering = self._lingering.get(native_turn)
        if lingering is not None:
            self._wind_down(lingering, "interrupted")

    def _wind_down(self, binding: TurnBinding, status: str) -> None:
        """A turn whose run was already ended by the orchestration has really stopped now:
        its provider turn and thread catch up (the healthy end of `end_run_on_interrupt`)."""
        self._lingering.pop(binding.native_turn, None)
        state = self.core.threads[binding.thread_id]
        with self.core.batch() as b:
            now = self.core.now()
            pturn = state.get("providerTurns", binding.provider_turn_id)
            if pturn is not None and pturn["status"] in ("running", "pending"):
                b.add(binding.thread_id, "provider-turn.updated",
                      {**pturn, "status": status, "completedAt": now}, run_id=binding.run_id)
            pthread = state.get("providerThreads", binding.provider_thread_id)
            if pthread is not None and pthread["status"] == "active" \
                    and state.executing_run() is None:
                b.add(binding.thread_id, "provider-thread.updated",
                      {**pthread, "status": "idle", "updatedAt": now}, run_id=binding.run_id)

    def _end(self, batch: Batch, binding: TurnBinding, status: str,
             run_fields: dict[str, Any] | None = None) -> None:
        """Make the run terminal (with its attempt, root node, turn and provider thread)."""
        self._bindings.pop(binding.native_turn, None)
        self._by_run.pop(binding.run_id, None)
        end_run(self.core, batch, binding.thread_id, binding.run_id, status, run_fields,
                provider_turn_id=binding.provider_turn_id, attempt_id=binding.attempt_id,
                root_node_id=binding.root_node_id, provider_thread_id=binding.provider_thread_id)
        if self.on_terminal is not None:
            run = self.core.threads[binding.thread_id].coll["runs"][binding.run_id]
            self.on_terminal(batch, binding.thread_id, run)

    # interrupts

    def interrupt(self, batch: Batch, thread_id: str, run: dict[str, Any], reason: str | None
                  ) -> None:
        """Ask the provider to stop a run; a queued run is cancelled at once."""
        if run["status"] == "queued":
            end_run(self.core, batch, thread_id, run["id"], "cancelled")
            if self.on_terminal is not None:
                self.on_terminal(batch, thread_id, self.core.threads[thread_id].coll["runs"][run["id"]])
            return
        binding = self._by_run.get(run["id"])
        now = self.core.now()
        item_id = new_id("item")
        batch.add(thread_id, "turn-item.updated", entities.turn_item(
            item_id=item_id, item_type="run_interrupt_request", thread_id=thread_id,
            run_id=run["id"], ordinal=self._item_ordinal(thread_id, item_id), status="completed",
            now=now, completed=True, fields={"message": reason or "Interrupt requested."}),
            run_id=run["id"])
        if binding is None:
            # nothing on the provider side will ever answer: end it here
            end_run(self.core, batch, thread_id, run["id"], "interrupted")
            if self.on_terminal is not None:
                self.on_terminal(batch, thread_id, self.core.threads[thread_id].coll["runs"][run["id"]])
            return
        provider = self.sessions.provider_for(binding.instance)
        self._asked.add(run["id"])
        if provider.config.ends_run_first:
            # the orchestration ends the run now; the provider's turn follows when it stops
            # (or never, with the provider-runs-on-after-interrupt fault: #5587)
            self._interrupt_result(batch, thread_id, run["id"])
            self._bindings.pop(binding.native_turn, None)
            self._by_run.pop(binding.run_id, None)
            self._lingering[binding.native_turn] = binding
            end_run(self.core, batch, thread_id, run["id"], "interrupted", provider_side=False,
                    attempt_id=binding.attempt_id, root_node_id=binding.root_node_id)
            if self.on_terminal is not None:
                self.on_terminal(batch, thread_id, self.core.threads[thread_id].coll["runs"][run["id"]])

            def ask_lingering() -> None:
                if not provider.interrupt_turn(binding.native_turn):
                    self._wind_down(binding, "interrupted")

            batch.after(ask_lingering)
            return

        def ask_provider() -> None:
            if not provider.interrupt_turn(binding.native_turn):
                # The provider has no live turn to stop: it already finished one whose
                # notifications never reached us (seed 004's lost turn). Only the orchestration
                # can end such a run, and must, or the thread stays "Working" forever.
                self._on_interrupted(binding, {})

        batch.after(ask_provider)

    def abandon(self, batch: Batch, binding: TurnBinding) -> None:
        """Tear down a turn from the orchestration side (its provider attachment is gone)."""
        provider = self.sessions.provider_for(binding.instance)
        batch.after(lambda: provider.interrupt_turn(binding.native_turn, force=True))
        self._end(batch, binding, "interrupted")

    def bindings_on_session(self, thread_id: str, session_id: str) -> list[TurnBinding]:
        return [b for b in self._by_run.values()
                if b.thread_id == thread_id and b.session_id == session_id]

    def close(self) -> None:
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        self._lingering.clear()
        self._bindings.clear()
        self._by_run.clear()
