"""A scripted provider instance: sessions, native threads, subscriptions and running turns.

Like a Codex app-server, a session delivers a native thread's notifications only while that
thread is subscribed in it (subscribing is a side effect of starting or resuming the thread).
Everything the agent really does is written to the provider log whether or not anyone listens.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from t3tui.backend.provider.agent import ToolHost, TurnContext, TurnFailed, perform
from t3tui.backend.provider.config import ProviderInstanceConfig
from t3tui.backend.provider.log import ProviderLog
from t3tui.backend.provider.process import KILL_GRACE_SECONDS, ProcessRegistry
from t3tui.backend.provider.records import SessionRecords

log_ = logging.getLogger(__name__)
_RECORDED = ("turn.started", "turn.completed", "turn.failed", "turn.interrupted")


@dataclass(frozen=True)
class Notification:
    """One provider → orchestrator notification about a turn."""

    session_id: str
    native_thread: str
    native_turn: str
    kind: str  # item | message | request | completed | failed | interrupted
    data: dict[str, Any]


@dataclass
class _Session:
    id: str
    subscribed: set[str] = field(default_factory=set)


@dataclass
class _Turn:
    ref: str
    session_id: str
    native_thread: str
    context: TurnContext
    task: asyncio.Task[None] | None = None
    stop_reason: str | None = None  # why the provider itself stopped it (a detach)


class ScriptedProvider:
    """One provider instance (e.g. `codex`) running the scripted agent."""

    def __init__(
        self,
        config: ProviderInstanceConfig,
        *,
        cwd: Path,
        log_path: Path | None,
        clock: Callable[[], datetime],
        kill_grace: float = KILL_GRACE_SECONDS,
        records: SessionRecords | None = None,
    ) -> None:
        self.config = config
        self.records = records
        self.cwd = cwd
        self.log = ProviderLog(log_path, clock)
        self.processes = ProcessRegistry()
        self.sink: Callable[[Notification], None] | None = None
        self._kill_grace = kill_grace
        self._sessions: dict[str, _Session] = {}
        self._thread_app: dict[str, str] = {}
        self._turns: dict[str, _Turn] = {}
        self._requests: dict[str, asyncio.Future[str]] = {}
        self._ids = itertools.count(1)
        self._prefix = uuid.uuid4().hex[:6]

    @property
    def name(self) -> str:
        return self.config.name

    def _new_id(self, kind: str) -> str:
        return f"{kind}-{self.config.name}-{self._prefix}-{next(self._ids)}"

    # sessions and threads

    def open_session(self) -> str:
        session = _Session(self._new_id("psess"))
        self._sessions[session.id] = session
        self.log.write("session.opened", session=session.id)
        return session.id

    def start_thread(self, session_id: str, app_thread_id: str) -> str:
        native = self.records.new_thread_id() if self.records else self._new_id("native")
        self._thread_app[native] = app_thread_id
        self._sessions[session_id].subscribed.add(native)
        self.log.write(
            "thread.started", session=session_id, thread=native, appThreadId=app_thread_id
        )
        return native

    def resume_thread(self, session_id: str, native: str) -> None:
        self._sessions[session_id].subscribed.add(native)
        self.log.write("thread.resumed", session=session_id, thread=native)

    def unload_thread(self, session_id: str, native: str) -> None:
        session = self._sessions.get(session_id)
        if session is not None and native in session.subscribed:
            session.subscribed.discard(native)
            self.log.write("thread.unloaded", session=session_id, thread=native)

    def is_subscribed(self, session_id: str, native: str) -> bool:
        session = self._sessions.get(session_id)
        return session is not None and native in session.subscribed

    # turns

    def new_turn_ref(self) -> str:
        return self._new_id("turn")

    def start_turn(
        self, session_id: str, native: str, ref: str, text: str, tools: ToolHost,
        env: dict[str, str],
    ) -> None:
        """Start turn `ref` in the background; its progress arrives as notifications."""

        def emit(kind: str, data: dict[str, Any]) -> None:
            self._deliver(Notification(session_id, native, ref, kind, data))

        def log(event: str, **fields: Any) -> None:
            self.log.write(
                event,
                session=session_id,
                thread=native,
                turn=ref,
                appThreadId=self._thread_app.get(native),
                **fields,
            )
            if self.records is not None and event in _RECORDED:
                self._record(event, native, ref, fields)

        async def ask(request: dict[str, Any]) -> str:
            request_ref = self._new_id("req")
            future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
            self._requests[request_ref] = future
            log("approval.requested", request=request_ref, prompt=request.get("prompt"))
            emit("request", {**request, "requestRef": request_ref})
            try:
                decision = await future
            finally:
                self._requests.pop(request_ref, None)
            log("approval.resolved", request=request_ref, decision=decision)
            return decision

        ctx = TurnContext(
            text=text,
            tools=tools,
            dispatch=self.config.tool_dispatch,
            cwd=self.cwd,
            registry=self.processes,
            emit=emit,
            log=log,
            ask=ask,
            env=env,
            tool_timeout=(self.config.tool_timeout_ms / 1000
                          if self.config.tool_timeout_ms is not None else None),
            wake_reaction=self.config.wake_reaction,
        )
        turn = _Turn(ref, session_id, native, ctx)
        self._turns[ref] = turn
        log("turn.started", text=text)
        turn.task = asyncio.get_running_loop().create_task(self._run_turn(turn))
        turn.task.add_done_callback(lambda task: self._cancelled_early(turn, task))

    def _cancelled_early(self, turn: _Turn, task: asyncio.Task[None]) -> None:
        # a task cancelled before its first step never runs its own handler
        if task.cancelled() and self._turns.pop(turn.ref, None) is not None:
            turn.context.log("turn.interrupted")
            turn.context.emit("interrupted", {})

    async def _run_turn(self, turn: _Turn) -> None:
        ctx = turn.context
        try:
            reply = await perform(ctx)
        except asyncio.CancelledError:
            ctx.log("turn.interrupted", **({"reason": turn.stop_reason} if turn.stop_reason
                                            else {}))
            ctx.emit("interrupted", {})
            return
        except TurnFailed as exc:
            ctx.log("turn.failed", message=str(exc))
            ctx.emit("failed", {"message": str(exc)})
            return
        except Exception as exc:  # an agent bug must end the turn, not hang it
            ctx.log("turn.failed", message=f"scripted agent error: {exc!r}")
            ctx.emit("failed", {"message": f"scripted agent error: {exc}"})
            return
        finally:
            self._turns.pop(turn.ref, None)
        # log and notify in one synchronous step: whoever sees the log line sees the outcome
        ctx.log("turn.completed", reply=reply)
        ctx.emit("message", {"messageRef": ctx.next_ref("msg"), "text": reply, "streaming": False})
        ctx.emit("completed", {"reply": reply})

    def _record(self, event: str, native: str, ref: str, fields: dict[str, Any]) -> None:
        """Write the provider's own session record (a rollout or transcript line)."""
        assert self.records is not None
        try:
            if event == "turn.started":
                self.records.turn_started(native, ref, str(fields.get("text", "")))
            elif event == "turn.completed":
                self.records.turn_completed(native, ref, str(fields.get("reply", "")))
            elif event == "turn.failed":
                self.records.turn_failed(native, ref, str(fields.get("message", "")))
            else:
                self.records.turn_interrupted(native, ref)
        except OSError as exc:  # a full disk must not end the agent's turn
            log_.warning("cannot write the session record of %s: %s", native, exc)

    def turn_is_live(self, ref: str) -> bool:
        return ref in self._turns

    def interrupt_turn(self, ref: str, *, force: bool = False) -> bool:
        """Ask a live turn to stop (its subprocess groups are killed when it does); False when
        none is live. A provider with an interrupt fault accepts and ignores the ask, one with
        `interrupt_delay_ms` stops that much later; `force` (a torn-down attachment) always
        stops it now."""
        turn = self._turns.get(ref)
        if turn is None or turn.task is None or turn.task.done():
            return False
        if not force and self.config.interrupt_ignored:
            turn.context.log("turn.interrupt-ignored")
            return True
        if not force and self.config.interrupt_delay_ms:
            turn.context.log("turn.interrupt-delayed", delayMs=self.config.interrupt_delay_ms)
            task = turn.task
            asyncio.get_running_loop().call_later(self.config.interrupt_delay_ms / 1000, task.cancel)
            return True
        turn.task.cancel()
        return True

    def stop_thread_turns(self, session_id: str, native: str, reason: str,
                          on_stopped: Callable[[str], None] | None = None) -> list[str]:
        """Stop every live turn of `native` in `session_id` now, faults or not: its session is
        being detached, and a turn nobody is attached to must not run on (and burn CPU) until
        it ends by itself (#5587). Its processes get SIGTERM, then SIGKILL after the grace, the
        whole group. `on_stopped(ref)` is called once a turn has ended and its processes are
        gone. Returns the turns stopped."""
        stopped = []
        for turn in list(self._turns.values()):
            task = turn.task
            if turn.session_id != session_id or turn.native_thread != native \
                    or task is None or task.done():
                continue
            turn.stop_reason = reason
            turn.context.log("turn.stopping", reason=reason)
            if on_stopped is not None:
                task.add_done_callback(lambda _task, ref=turn.ref: on_stopped(ref))
            if not task.cancelling():  # a second cancel would cut short its kill in progress
                task.cancel()
            stopped.append(turn.ref)
        return stopped

    def steer(self, ref: str, text: str) -> bool:
        """Inject a message into a live turn; it is performed before the turn ends."""
        turn = self._turns.get(ref)
        if turn is None:
            return False
        turn.context.steered.put_nowait(text)
        turn.context.log("turn.steered", text=text)
        return True

    def resolve_request(self, request_ref: str, decision: str) -> bool:
        future = self._requests.get(request_ref)
        if future is None or future.done():
            return False
        future.set_result(decision)
        return True

    def _deliver(self, note: Notification) -> None:
        if self.sink is not None and self.is_subscribed(note.session_id, note.native_thread):
            self.sink(note)

    async def close(self) -> None:
        """Stop every turn and kill every subprocess group."""
        self.sink = None
        tasks = [t.task for t in self._turns.values() if t.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.processes.kill_all(self._kill_grace)
        self.log.close()
