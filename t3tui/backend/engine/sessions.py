"""Provider session manager: which session each thread runs in, and T3's loaded-thread cache.

A delegated child on its parent's provider instance joins the parent's live session (Codex app
servers hold several threads per session). A thread's native thread is resumed (subscribed)
only when the cache says it is not loaded; that cache is what seed 004's bug leaves stale.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from t3tui.backend.engine import entities
from t3tui.backend.engine.core import Batch, Core
from t3tui.backend.provider import SETTLE_DROPS_CHILD_SUBSCRIPTION, ScriptedProvider
from t3tui.protocol import native_id_of

SETTLE_REASON = "Thread settled."


class SessionManager:
    def __init__(self, core: Core, providers: dict[str, ScriptedProvider]) -> None:
        self.core = core
        self.providers = providers
        self._session_of: dict[str, str] = {}
        self._instance_of: dict[str, str] = {}
        # thread id -> native thread ref believed loaded (upstream loadedProviderThreadKeyByThread)
        self._loaded: dict[str, str] = {}
        # told the native turn ref of each turn a detach stopped, once its processes are gone
        self.on_turn_stopped: Callable[[str], None] | None = None

    def provider_for(self, instance: str) -> ScriptedProvider:
        return self.providers[instance]

    def bind(self, batch: Batch, thread_id: str, run: dict[str, Any]
             ) -> tuple[ScriptedProvider, str, dict[str, Any]]:
        """Attach `thread_id` to a session and load its native thread; emits the events."""
        state = self.core.threads[thread_id]
        thread = state.thread or {}
        instance = thread["providerInstanceId"]
        provider = self.providers[instance]
        now = self.core.now()
        session_id = self._session_of.get(thread_id)
        if session_id is None:
            parent_session = self._session_of.get(state.parent_id() or "")
            if parent_session is not None and self._instance_of[parent_session] == instance:
                session_id = parent_session
            else:
                session_id = provider.open_session()
                self._instance_of[session_id] = instance
            self._session_of[thread_id] = session_id
            batch.add(thread_id, "provider-session.attached", entities.provider_session(
                session_id=session_id, driver=provider.config.driver, instance=instance,
                cwd=str(provider.cwd), model=thread["modelSelection"].get("model", ""),
                steering=provider.config.supports_active_steering, now=now))
        pthread = self.provider_thread(thread_id, instance)
        if pthread is None:
            native = provider.start_thread(session_id, thread_id)
            self._loaded[thread_id] = native
            pthread = entities.provider_thread(
                thread_id=thread_id, driver=provider.config.driver, instance=instance,
                session_id=session_id, native=native, ordinal=run["ordinal"], now=now)
        else:
            native = native_id_of(pthread["nativeThreadRef"]) or ""
            if self._loaded.get(thread_id) != native:
                provider.resume_thread(session_id, native)
                self._loaded[thread_id] = native
            pthread = {**pthread, "providerSessionId": session_id, "status": "active",
                       "lastRunOrdinal": run["ordinal"], "updatedAt": now}
        batch.add(thread_id, "provider-thread.updated", pthread, run_id=run["id"])
        return provider, session_id, pthread

    def provider_thread(self, thread_id: str, instance: str) -> dict[str, Any] | None:
        state = self.core.threads[thread_id]
        matches = [p for p in state.values("providerThreads")
                   if p["providerInstanceId"] == instance]
        return matches[-1] if matches else None

    def detach(self, batch: Batch, thread_id: str, session_id: str, reason: str | None) -> None:
        """Detach one session from a thread: event, stop the turns the provider still runs for
        the thread there (a runaway whose run already ended), unload its native threads,
        forget the cache.

        With `settle-drops-child-subscription`, a settle also unloads the native threads of the
        thread's delegated children in that session but leaves their cache entries: seed 004.
        """
        state = self.core.threads[thread_id]
        payload: dict[str, Any] = {"providerSessionId": session_id, "detachedAt": self.core.now()}
        if reason is not None:
            payload["reason"] = reason
        batch.add(thread_id, "provider-session.detached", payload)
        instance = self._instance_of.get(session_id)
        provider = self.providers.get(instance) if instance else None
        natives = [native_id_of(p["nativeThreadRef"]) for p in state.values("providerThreads")
                   if p.get("providerSessionId") == session_id]
        own = [n for n in natives if n]
        if (provider is not None and reason == SETTLE_REASON
                and SETTLE_DROPS_CHILD_SUBSCRIPTION in provider.config.faults):
            natives += self._children_natives(thread_id, session_id)
        if self._session_of.get(thread_id) == session_id:
            del self._session_of[thread_id]
            self._loaded.pop(thread_id, None)
        if provider is not None:
            def effect() -> None:
                why = reason or "session detached"
                for native in own:  # the children the fault unloads are not stopped: seed 004
                    provider.stop_thread_turns(session_id, native, why, self.on_turn_stopped)
                for native in natives:
                    if native:
                        provider.unload_thread(session_id, native)

            batch.after(effect)

    def _children_natives(self, thread_id: str, session_id: str) -> list[str | None]:
        natives = []
        for task in self.core.threads[thread_id].values("subagents"):
            child = self.core.threads.get(task.get("childThreadId") or "")
            if child is None:
                continue
            natives += [native_id_of(p["nativeThreadRef"]) for p in child.values("providerThreads")
                        if p.get("providerSessionId") == session_id]
        return natives
