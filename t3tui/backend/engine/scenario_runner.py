"""Drive a scenario's steps through the engine's public commands.

Step command ids are derived from the scenario name and step index (`scenario:<name>:<n>`), and
every step leaves a receipt under its id once done (a command's own, or an empty one for a wait,
a pause or an interrupt with nothing to stop). A scenario with any receipt on this data dir is
not run again: a restarted server resumes from its stored state. Its steps would otherwise wait
for runs the restart ended ("never reached running"), and one that a stop cut short cannot be
finished either (its runs were interrupted by the restart), so it is left as it stopped, said
once in the log.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Protocol

from t3tui.backend.engine.config import DEFAULT_PROJECT_ID
from t3tui.backend.engine.core import Core
from t3tui.backend.engine.delivery import delivery_state
from t3tui.backend.engine.ids import client_request_id_of
from t3tui.backend.engine.projection import TERMINAL_TASK
from t3tui.backend.engine.tasks import SETTLED_DELIVERY
from t3tui.backend.provider import ScriptedProvider
from t3tui.backend.scenarios import Scenario, ScenarioError

DEFAULT_WAIT_MS = 60_000
log = logging.getLogger(__name__)


class ScenarioEngine(Protocol):
    """What a scenario drives: the parts of `service.Engine` it uses, named here so that this
    module does not import the engine's, which runs scenarios through this one."""

    core: Core
    providers: dict[str, ScriptedProvider]

    async def dispatch(self, command: Any) -> int: ...

    async def launch_thread(self, inp: Any) -> dict[str, Any]: ...

    def shell_row_wire(self, thread_id: str) -> dict[str, Any] | None: ...


class ScenarioRunner:
    def __init__(self, engine: ScenarioEngine, scenario: Scenario) -> None:
        self.engine = engine
        self.scenario = scenario
        self.aliases: dict[str, str] = {}

    def resolve(self, ref: str) -> str | None:
        """A thread id from an alias, `task:<clientRequestId>`, or a literal thread id."""
        if ref in self.aliases:
            return self.aliases[ref]
        if ref.startswith("task:"):
            wanted = ref[len("task:"):]
            for state in self.engine.core.threads.values():
                for row in state.values("subagents"):
                    if client_request_id_of(row["id"]) == wanted:
                        return row.get("childThreadId")
            return None
        return ref if ref in self.engine.core.threads else None

    def _thread(self, ref: str, where: str) -> str:
        thread_id = self.resolve(ref)
        if thread_id is None:
            raise ScenarioError(f"{where}: no thread {ref!r}")
        return thread_id

    async def run(self) -> None:
        name, steps = self.scenario.name, self.scenario.steps
        ids = [f"scenario:{name}:{index + 1}" for index in range(len(steps))]
        done = [self._done(command_id) for command_id in ids]
        if any(done):
            if all(done):
                log.info("scenario %s already ran on this data dir; resuming from the stored "
                         "state", name)
            else:
                log.warning(
                    "scenario %s was stopped at step %d of %d (the server stopped); resuming "
                    "from the stored state without its remaining steps: the restart "
                    "interrupted the runs they would wait for", name, done.index(False) + 1,
                    len(steps))
            return
        for index, step in enumerate(steps):
            await self._step(step, ids[index], f"scenario {name}, step {index + 1}")
            if not self._done(ids[index]):
                with self.engine.core.batch(ids[index]):
                    pass  # an empty receipt: this step is done

    def _done(self, command_id: str) -> bool:
        return self.engine.core.store.receipt(command_id) is not None

    async def _step(self, step: dict[str, Any], command_id: str, where: str) -> None:
        engine = self.engine
        if "launch" in step:
            alias = step["launch"]
            thread_id = step.get("threadId") or f"thread-{alias}"
            provider = step.get("provider") or next(iter(engine.providers))
            selection = {"instanceId": provider,
                         "model": step.get("model") or engine.providers[provider].config.model}
            launch: dict[str, Any] = {
                "commandId": command_id, "creationSource": "web", "threadId": thread_id,
                "projectId": step.get("projectId", DEFAULT_PROJECT_ID),
                "title": step.get("title", alias), "modelSelection": selection,
                "runtimeMode": step.get("runtimeMode", "full-access"),
                "interactionMode": "default", "workspaceStrategy": {"type": "root"}}
            if step.get("text"):
                launch["initialMessage"] = {"text": step["text"], "attachments": []}
            result = await engine.launch_thread(launch)
            self.aliases[alias] = result["threadId"]
        elif "message" in step:
            thread_id = self._thread(step["message"], where)
            mode = step.get("mode", "start_immediately")
            await engine.dispatch({
                "type": "message.dispatch", "commandId": command_id, "createdBy": "user",
                "creationSource": "web", "threadId": thread_id, "messageId": command_id,
                "text": step.get("text", ""), "attachments": [],
                "dispatchMode": mode if isinstance(mode, dict) else {"type": mode}})
        elif "settle" in step or "unsettle" in step:
            kind = "settle" if "settle" in step else "unsettle"
            command = {"type": f"thread.{kind}", "commandId": command_id,
                       "threadId": self._thread(step[kind], where)}
            if kind == "unsettle":
                command["reason"] = "user"
            await engine.dispatch(command)
        elif "respond" in step:
            thread_id = self._thread(step["respond"], where)
            state = engine.core.threads[thread_id]
            pending = state.pending_requests()
            if not pending:
                raise ScenarioError(f"{where}: thread {thread_id} has no pending request")
            await engine.dispatch({"type": "runtime-request.respond", "commandId": command_id,
                                   "threadId": thread_id, "requestId": pending[0]["id"],
                                   "decision": step.get("decision", "accept")})
        elif "interrupt" in step:
            thread_id = self._thread(step["interrupt"], where)
            run = engine.core.threads[thread_id].executing_run()
            if run is not None:
                await engine.dispatch({"type": "run.interrupt", "commandId": command_id,
                                       "threadId": thread_id, "runId": run["id"]})
        elif "pauseMs" in step:
            await asyncio.sleep(float(step["pauseMs"]) / 1000)
        elif "waitIdle" in step:
            refs = step["waitIdle"] if isinstance(step["waitIdle"], list) else [step["waitIdle"]]
            await self._wait(lambda: all(self._idle(r) for r in refs), step,
                             f"{where}: {', '.join(refs)} not idle")
        elif "waitFor" in step:
            ref, status = step["waitFor"], step.get("status")
            await self._wait(lambda: self._has_status(ref, status), step,
                             f"{where}: {ref} never reached {status or 'existence'}")

    def _idle(self, ref: str) -> bool:
        thread_id = self.resolve(ref)
        state = self.engine.core.threads.get(thread_id or "")
        if state is None or state.has_active_run():
            return False
        return all(row["status"] in TERMINAL_TASK and delivery_state(row) in SETTLED_DELIVERY
                   for row in state.values("subagents"))

    def _has_status(self, ref: str, status: str | None) -> bool:
        thread_id = self.resolve(ref)
        if thread_id is None:
            return False
        if status is None:
            return True
        row = self.engine.shell_row_wire(thread_id) or {}
        return status in (row.get("status"), row.get("activityRunStatus")) or (
            status == "needs-input" and row.get("pendingRuntimeRequest") is not None)

    async def _wait(self, ready: Callable[[], bool], step: dict[str, Any], message: str) -> None:
        timeout = float(step.get("timeoutMs", DEFAULT_WAIT_MS)) / 1000
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not ready():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise ScenarioError(f"{message} within {timeout:g} s")
            await self.engine.core.changed(remaining)
