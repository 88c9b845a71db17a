"""Reusable helpers for driving an in-process engine (also used by the seed tests).

Nothing here sleeps for a fixed time: `until` waits for the next engine commit, polling at most
every 50 ms for conditions that no event announces (the provider's own log).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from t3tui.backend.engine import Engine, EngineConfig, EventStore, client_request_id_of
from t3tui.protocol import contract

T = TypeVar("T")
_ids = itertools.count(1)


@asynccontextmanager
async def open_engine(data_dir: Path, **config: Any) -> AsyncIterator[Engine]:
    """A started engine on `data_dir`; closed (agents killed) on exit."""
    engine = Engine(EventStore.open(data_dir), EngineConfig(**config))
    await engine.start()
    problems: list[str] = []
    engine.listen(lambda stored: problems.extend(off_contract(stored)))
    try:
        yield engine
    finally:
        await engine.close()
    assert not problems, "events outside T3's V2 contract:\n" + "\n".join(problems[:10])


def off_contract(stored: Any) -> list[str]:
    """Where a stored event breaks T3's V2 contract (every event is what the engine sends)."""
    return [f"sequence {stored.sequence} {stored.wire.get('type')}: {problem}"
            for problem in contract.violations(contract.DomainEvent, stored.wire)]


def fresh(prefix: str = "c") -> str:
    return f"{prefix}-{next(_ids)}"


def message(thread_id: str, text: str, mode: str = "start_immediately",
            target_run_id: str | None = None, command_id: str | None = None) -> dict[str, Any]:
    """A `message.dispatch` command as t3tui sends it."""
    dispatch_mode: dict[str, Any] = {"type": mode}
    if target_run_id is not None:
        dispatch_mode["targetRunId"] = target_run_id
    return {"type": "message.dispatch", "commandId": command_id or fresh(), "createdBy": "user",
            "creationSource": "web", "threadId": thread_id, "messageId": fresh("msg"),
            "text": text, "attachments": [], "dispatchMode": dispatch_mode}


async def launch(engine: Engine, text: str | None = None, *, provider: str = "codex",
                 thread_id: str | None = None) -> str:
    """Create a top-level thread (and start `text` on it)."""
    launch_input: dict[str, Any] = {
        "commandId": fresh("launch"), "creationSource": "web", "projectId": "project-1",
        "title": "test thread", "modelSelection": {"instanceId": provider, "model": "m"},
        "runtimeMode": "full-access", "interactionMode": "default",
        "workspaceStrategy": {"type": "root"}}
    if thread_id is not None:
        launch_input["threadId"] = thread_id
    if text is not None:
        launch_input["initialMessage"] = {"text": text, "attachments": []}
    result = await engine.launch_thread(launch_input)
    return str(result["threadId"])


async def until(engine: Engine, predicate: Callable[[], T], timeout: float = 5.0,
                what: str = "") -> T:
    """Wait until `predicate()` is truthy (returned) or fail after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (value := predicate()):
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}")
        await engine.core.changed(min(remaining, 0.05))
    return value


def row(engine: Engine, thread_id: str) -> dict[str, Any]:
    found = engine.shell_row_wire(thread_id)
    assert found is not None, f"no thread {thread_id}"
    return found


def child_of(engine: Engine, parent_id: str, client_request_id: str) -> str | None:
    """The child thread of the parent's task with this clientRequestId, once it exists."""
    state = engine.core.threads.get(parent_id)
    for task in state.values("subagents") if state else []:
        if client_request_id_of(task["id"]) == client_request_id:
            return task.get("childThreadId")
    return None


def idle(engine: Engine, thread_id: str) -> bool:
    """No active run and no undelivered child result."""
    state = engine.core.threads.get(thread_id)
    if state is None or state.has_active_run():
        return False
    return all(t["status"] in ("completed", "failed", "cancelled", "interrupted")
               and (t.get("completionDelivery") or {}).get("state")
               in ("acknowledged", "delivered", "disposed") for t in state.values("subagents"))


def assistant_texts(engine: Engine, thread_id: str) -> list[str]:
    return [m["text"] for m in engine.state(thread_id).values("messages")
            if m.get("role") == "assistant"]


def delegate_call(**args: Any) -> str:
    """One line of the instruction language: a `delegate_task` call."""
    return "delegate_task " + json.dumps(args)
