"""The `Engine`: the orchestrator the transport calls (API in docs/ARCHITECTURE.md)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from t3tui.backend.engine.commands import Commands
from t3tui.backend.engine.config import EngineConfig
from t3tui.backend.engine.core import Core
from t3tui.backend.engine.delegation import Delegation
from t3tui.backend.engine.delivery import Delivery
from t3tui.backend.engine.errors import CommandRejected, UnknownThread
from t3tui.backend.engine.ids import new_id
from t3tui.backend.engine.messages import post_user_message
from t3tui.backend.engine.projection import ThreadState
from t3tui.backend.engine.recovery import RESTART_NOTICE, SHUTDOWN_NOTICE, wind_down
from t3tui.backend.engine.runs import RunManager
from t3tui.backend.engine.scenario_runner import ScenarioRunner
from t3tui.backend.engine.sessions import SessionManager
from t3tui.backend.engine.shell import shell_row
from t3tui.backend.provider import ProviderInstanceConfig, ScriptedProvider
from t3tui.backend.provider.ledger import DIR_NAME as LEDGER_DIR
from t3tui.backend.provider.ledger import AgentLedger
from t3tui.backend.provider.records import CLAUDE_DRIVER, SessionRecords
from t3tui.backend.scenarios import Scenario, load_scenario
from t3tui.backend.store import EventStore, StoredEvent
from t3tui.protocol import ProtocolError, ShellSnapshot, ThreadProjection, ThreadShell
from t3tui.protocol.stream import salvage_shell_snapshot

log = logging.getLogger(__name__)


class Engine:
    """Projects, threads, runs, delegation and the scripted providers, over one event store."""

    def __init__(self, store: EventStore, config: EngineConfig | None = None) -> None:
        self.config = config or EngineConfig()
        self.store = store
        self.data_dir = Path(self.config.data_dir or store.path.parent)
        self.workspace = Path(self.config.workspace or self.data_dir / "workspace")
        self.core = Core(store, self.config.clock)
        self.ledger = AgentLedger(self.data_dir / LEDGER_DIR)
        self.providers: dict[str, ScriptedProvider] = {}
        self.sessions = SessionManager(self.core, self.providers)
        self.runs = RunManager(self.core, self.sessions, drain_seconds=self.config.drain_seconds,
                               tools_for=lambda t, r, s: self.delegation.tools_for(t, r, s))
        self.delegation = Delegation(self.core, self.runs, self.providers)
        self.delivery = Delivery(self.core, self.runs)
        self.commands = Commands(self.core, self.runs, self.sessions, self.delegation,
                                 self.delivery)
        self.runs.on_terminal = self.delivery.on_run_terminal
        self.sessions.on_turn_stopped = self.runs.turn_stopped
        self._reacting = False
        self._started = False
        self._closed = False

    # lifecycle

    async def start(self) -> None:
        """Rebuild state from the store, end work the last process left live, start providers."""
        self.workspace.mkdir(parents=True, exist_ok=True, mode=0o700)
        # A previous run killed with -9 could not end its agents: end them before any new one.
        self.ledger.reap_previous()
        self.core.projects = self.config.project_rows(self.workspace, self.core.now())
        for provider_config in self.config.provider_configs():
            self.add_provider(provider_config)
        count = self.core.replay()
        log.info("replayed %d events (head %d)", count, self.head)
        wind_down(self.core, RESTART_NOTICE, self.delivery.on_run_terminal)
        self.core.on_committed = lambda events: self._react()
        self._started = True
        self._react()

    async def close(self) -> None:
        """Stop every run and kill every agent subprocess; the store says what happened."""
        if self._closed:
            return
        self._closed = True
        self.core.on_committed = None
        self.runs.close()
        for provider in self.providers.values():
            await provider.close()
        if self._started:
            try:
                wind_down(self.core, SHUTDOWN_NOTICE, self.delivery.on_run_terminal)
            except Exception:
                log.exception("could not record the shutdown")
        self.store.close()

    def add_provider(self, config: ProviderInstanceConfig) -> ScriptedProvider:
        """Register a provider instance; an unused one with the same name is replaced."""
        existing = self.providers.get(config.name)
        if existing is not None and existing.log.entries:
            return existing
        logs = self.data_dir / "provider-logs"
        claude = config.driver == CLAUDE_DRIVER
        home = (self.config.claude_home or self.data_dir / "claude-home") if claude \
            else (self.config.codex_home or self.data_dir / "codex-home")
        records = SessionRecords(driver=config.driver, home=home, cwd=self.workspace,
                                 model=config.model, clock=self.config.clock)
        provider = ScriptedProvider(config, cwd=self.workspace, log_path=logs / f"{config.name}.jsonl",
                                    clock=self.config.clock,
                                    kill_grace=self.config.kill_grace_seconds, records=records)
        provider.sink = self.runs.on_notification
        provider.processes.ledger = self.ledger
        if existing is not None:
            existing.log.close()
        self.providers[config.name] = provider
        return provider

    def _react(self) -> None:
        """Start queued runs, publish finished children, wake parents, until nothing changes."""
        if self._reacting or self._closed:
            return
        self._reacting = True
        try:
            while True:
                head = self.head
                self.runs.start_ready()
                self.delivery.finalize_ready()
                self.delivery.plan()
                if self.head == head:
                    break
        except Exception:
            log.exception("engine reaction failed")
        finally:
            self._reacting = False

    # reads

    @property
    def head(self) -> int:
        return self.core.head

    def state(self, thread_id: str) -> ThreadState:
        """The projection as wire dicts (for tests and tools); raises `UnknownThread`."""
        state = self.core.threads.get(thread_id)
        if state is None or state.thread is None:
            raise UnknownThread(thread_id)
        return state

    def projection_wire(self, thread_id: str) -> dict[str, Any]:
        return self.state(thread_id).to_wire()

    def projection(self, thread_id: str) -> ThreadProjection:
        return ThreadProjection.from_wire(self.projection_wire(thread_id))

    def shell_row_wire(self, thread_id: str) -> dict[str, Any] | None:
        state = self.core.threads.get(thread_id)
        return shell_row(state) if state is not None and state.thread is not None else None

    def shell_row(self, thread_id: str) -> ThreadShell | None:
        row = self.shell_row_wire(thread_id)
        return None if row is None else ThreadShell.from_wire(row)

    def shell_snapshot(self) -> ShellSnapshot:
        rows = []
        for thread_id, state in self.core.threads.items():
            if state.thread is None:
                continue
            try:
                rows.append(shell_row(state))
            except Exception as exc:  # a thread built from unusable stored events
                log.warning("thread %s left out of the shell snapshot: %s: %s", thread_id,
                            type(exc).__name__, exc)
        doc = {
            "schemaVersion": 1, "snapshotSequence": self.head, "projects": self.core.projects,
            "threads": [r for r in rows if not r.get("archivedAt")],
            "archivedThreads": [r for r in rows if r.get("archivedAt")]}
        try:
            return ShellSnapshot.from_wire(doc)
        except ProtocolError as exc:
            # One bad row must not end every shell subscription: the others flow.
            salvaged = salvage_shell_snapshot({"kind": "snapshot", "snapshot": doc})
            if salvaged is None:
                raise
            log.warning("%d thread row(s) left out of the shell snapshot: %s", salvaged[1],
                        exc.message)
            return ShellSnapshot.from_wire(salvaged[0]["snapshot"])

    def events_after(self, seq: int, limit: int | None = None) -> list[StoredEvent]:
        return self.store.events_after(seq, limit)

    def listen(self, callback: Callable[[StoredEvent], None]) -> Callable[[], None]:
        return self.core.listen(callback)

    def provider_log(self, name: str | None = None) -> list[dict[str, Any]]:
        """What the providers really did (all instances, or one)."""
        providers = [self.providers[name]] if name else list(self.providers.values())
        return [e for p in providers for e in p.log.entries]

    # writes

    async def dispatch(self, command: Any) -> int:
        """Apply a command (protocol model or wire dict); returns its last sequence.

        Idempotent by `commandId`: a repeat returns the first result and changes nothing.
        """
        wire = command.to_wire() if hasattr(command, "to_wire") else dict(command)
        command_id = wire.get("commandId")
        if not isinstance(command_id, str) or not command_id:
            raise CommandRejected("The command has no commandId.")
        receipt = self.store.receipt(command_id)
        if receipt is not None:
            return receipt.sequence
        if self._closed:
            raise CommandRejected("The server is shutting down.")
        return self.commands.handle(wire)

    async def launch_thread(self, inp: Any) -> dict[str, Any]:
        """`orchestration.launchThread`: create a thread, optionally with a first message."""
        wire = inp.to_wire() if hasattr(inp, "to_wire") else dict(inp)
        command_id = wire.get("commandId")
        if not isinstance(command_id, str) or not command_id:
            raise CommandRejected("The launch has no commandId.")
        receipt = self.store.receipt(command_id)
        if receipt is not None and receipt.result:
            thread_id = receipt.result["threadId"]
            return {"threadId": thread_id, "projection": self.projection_wire(thread_id),
                    "resumed": bool(receipt.result.get("resumed"))}
        thread_id = wire.get("threadId") or new_id("thread")
        strategy = wire.get("workspaceStrategy") or {}
        resumed = thread_id in self.core.threads
        if resumed and not wire.get("reuseExistingThread"):
            raise CommandRejected(f"Thread {thread_id} already exists.")
        create = {"type": "thread.create", "commandId": command_id, "threadId": thread_id,
                  "projectId": wire.get("projectId"), "title": wire.get("title"),
                  "createdBy": "user", "creationSource": wire.get("creationSource", "web"),
                  "modelSelection": wire.get("modelSelection"),
                  "runtimeMode": wire.get("runtimeMode", "full-access"),
                  "interactionMode": wire.get("interactionMode", "default"),
                  "branch": strategy.get("branch"), "worktreePath": strategy.get("worktreePath")}
        message = wire.get("initialMessage")
        with self.core.batch(command_id, {"threadId": thread_id, "resumed": resumed}) as b:
            if not resumed:
                self.commands.thread_create(create, batch=b)
            if message and message.get("text"):
                post_user_message(self.runs, b, thread_id,
                                  message_id=message.get("messageId") or new_id("msg"),
                                  text=message["text"], created_by="user",
                                  creation_source=create["creationSource"],
                                  intent="queued_turn" if self.core.threads[thread_id]
                                  .has_active_run() else "turn_start")
        return {"threadId": thread_id, "projection": self.projection_wire(thread_id),
                "resumed": resumed}

    async def run_scenario(self, scenario: str | Path | Scenario,
                           overrides: dict[str, Any] | None = None) -> None:
        """Register the scenario's provider instances and drive its steps."""
        if not isinstance(scenario, Scenario):
            scenario = load_scenario(scenario, overrides)
        for entry in scenario.providers:
            self.add_provider(self.config.provider_from_entry(entry))
        await ScenarioRunner(self, scenario).run()

