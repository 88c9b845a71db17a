"""The scripted agent: performs one turn's instructions with real processes and tool calls."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from t3tui.backend.provider import instructions as ins
from t3tui.backend.provider.process import ProcessRegistry, run_command

OUTPUT_FLUSH_SECONDS = 0.1
OUTPUT_CAP = 16 * 1024  # the tail a timeline row keeps; every update stores it whole
ACCEPTING = frozenset({"accept", "acceptForSession", "acceptAlways"})


class ToolHost(Protocol):
    """The orchestrator's MCP tools as the agent sees them (in-process calls)."""

    async def call_tool(self, name: str, args: dict[str, Any]) -> dict[str, Any]: ...


class TurnFailed(Exception):
    """The script asked the turn to fail."""


@dataclass
class TurnContext:
    """What one running turn can do; the instance wires `emit` and `log`."""

    text: str
    tools: ToolHost
    dispatch: str
    cwd: Path
    registry: ProcessRegistry
    emit: Callable[[str, dict[str, Any]], None]
    log: Callable[..., None]
    ask: Callable[[dict[str, Any]], Awaitable[str]]
    env: dict[str, str] = field(default_factory=dict)
    tool_timeout: float | None = None  # the agent client's own ceiling on one MCP tool call
    wake_reaction: str | None = None  # what it does once woken and its results are read
    steered: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    _counter: int = 0
    replies: list[str] = field(default_factory=list)

    def next_ref(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}-{self._counter}"


async def perform(ctx: TurnContext) -> str:
    """Run the message and any steered messages; return the final reply text."""
    await _perform_text(ctx, ctx.text)
    while not ctx.steered.empty():
        await _perform_text(ctx, ctx.steered.get_nowait())
    return "\n".join(r for r in ctx.replies if r) or ins.DEFAULT_REPLY


async def _perform_text(ctx: TurnContext, text: str) -> None:
    for step in ins.parse(text):
        match step:
            case ins.Reply(text=reply):
                ctx.replies.append(reply)
            case ins.RunCommand(command=command):
                await _run(ctx, command)
            case ins.AskApproval(command=command):
                await _ask_then_run(ctx, command)
            case ins.Delegate(calls=calls):
                await _delegate(ctx, calls)
            case ins.ReadTasks(task_ids=task_ids):
                await _read_tasks(ctx, task_ids)
                if ctx.wake_reaction and not ins.is_wake(ctx.wake_reaction):
                    await _perform_text(ctx, ctx.wake_reaction)
            case ins.Hang():
                ctx.log("turn.hanging")
                await asyncio.Event().wait()
            case ins.Fail(message=message):
                raise TurnFailed(message)
            case ins.BadInstruction(message=message):
                ctx.replies.append(f"Could not follow an instruction: {message}")


async def _run(ctx: TurnContext, command: str) -> int:
    ref = ctx.next_ref("item")
    output: list[str] = []
    size = 0
    flush_handle: asyncio.TimerHandle | None = None
    loop = asyncio.get_running_loop()
    last_flush = 0.0

    def item(status: str, exit_code: int | None = None) -> dict[str, Any]:
        data = {
            "itemRef": ref,
            "type": "command_execution",
            "title": command,
            "input": command,
            "output": "".join(output),
            "status": status,
        }
        if exit_code is not None:
            data["exitCode"] = exit_code
        return data

    def flush() -> None:
        nonlocal flush_handle, last_flush
        flush_handle = None
        last_flush = loop.time()
        ctx.emit("item", item("running"))

    def on_output(chunk: str) -> None:
        nonlocal size, flush_handle
        output.append(chunk)
        size += len(chunk)
        while size > OUTPUT_CAP and len(output) > 1:
            size -= len(output.pop(0))
        # coalesce bursts; a slow producer still shows every line as it comes
        if loop.time() - last_flush >= OUTPUT_FLUSH_SECONDS:
            flush()
        elif flush_handle is None:
            flush_handle = loop.call_later(OUTPUT_FLUSH_SECONDS, flush)

    ctx.emit("item", item("running"))
    try:
        code = await run_command(
            command,
            cwd=ctx.cwd,
            on_output=on_output,
            registry=ctx.registry,
            env=ctx.env,
            on_start=lambda pid: ctx.log("command.started", command=command, pid=pid),
        )
    except OSError as exc:
        output.append(f"cannot start command: {exc}")
        code = 127
    except asyncio.CancelledError:
        ctx.emit("item", item("interrupted"))
        raise
    finally:
        if flush_handle is not None:
            flush_handle.cancel()
    ctx.log("command.exited", command=command, exitCode=code)
    ctx.emit("item", item("completed" if code == 0 else "failed", code))
    return code


async def _ask_then_run(ctx: TurnContext, command: str) -> None:
    decision = await ctx.ask(
        {"requestKind": "command", "prompt": f"Run `{command}`", "command": command}
    )
    if decision in ACCEPTING:
        await _run(ctx, command)
    else:
        ctx.replies.append(f"Not running `{command}`: the request was answered {decision}.")


def _stop_if_cancelled() -> None:
    """End the turn if it was asked to stop, even when awaited code swallowed the cancel."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


async def _tool(ctx: TurnContext, name: str, args: dict[str, Any]) -> dict[str, Any]:
    _stop_if_cancelled()  # an interrupted turn sends no further call (seed 000's queued call)
    ref = ctx.next_ref("tool")
    base = {
        "itemRef": ref,
        "type": "dynamic_tool",
        "title": name,
        "toolName": name,
        "input": json.dumps(args),
    }
    ctx.emit("item", {**base, "status": "running"})
    ctx.log("tool.call", tool=name, args=args)
    try:
        if ctx.tool_timeout is not None:
            result = await asyncio.wait_for(ctx.tools.call_tool(name, args), ctx.tool_timeout)
        else:
            result = await ctx.tools.call_tool(name, args)
        # a tool host that returned despite the cancel (asyncio.wait_for on 3.11 can) does not
        # get to resume an interrupted turn
        _stop_if_cancelled()
    except TimeoutError:
        # the agent's MCP client gave up at its own ceiling (#11168): a bare "fetch failed",
        # no output, no taskId; whatever the server started goes on without it
        _stop_if_cancelled()
        ctx.log("tool.timeout", tool=name, afterSeconds=ctx.tool_timeout)
        ctx.emit("item", {**base, "status": "failed"})
        return {"_tag": CLIENT_GAVE_UP, "message": "fetch failed"}
    except asyncio.CancelledError:
        ctx.emit("item", {**base, "status": "interrupted"})
        raise
    failed = result.get("_tag") == "OrchestratorMcpFailure"
    ctx.log("tool.result", tool=name, result=result)
    ctx.emit(
        "item",
        {**base, "status": "failed" if failed else "completed", "output": json.dumps(result)},
    )
    return result


CLIENT_GAVE_UP = "ClientToolTimeout"


def _label(call: dict[str, Any]) -> str:
    return str(call.get("clientRequestId") or call.get("title") or "untitled task")


async def _delegate(ctx: TurnContext, calls: tuple[dict[str, Any], ...]) -> None:
    # the model narrates its intent in the same assistant message that carries the calls
    labels = ", ".join(_label(c) for c in calls)
    noun = "child" if len(calls) == 1 else "children"
    ctx.emit(
        "message",
        {
            "messageRef": ctx.next_ref("msg"),
            "text": f"Started {len(calls)} {noun}: {labels}.",
            "streaming": False,
        },
    )
    if ctx.dispatch == "serial":
        for call in calls:
            await _delegate_one(ctx, call)
    else:
        await asyncio.gather(*(_delegate_one(ctx, call) for call in calls))


async def _delegate_one(ctx: TurnContext, call: dict[str, Any]) -> None:
    """One delegate_task call; one that died at the client's ceiling is sent again, as agents
    do when they never learnt the taskId (without a clientRequestId: a second child)."""
    result = await _tool(ctx, "delegate_task", call)
    if result.get("_tag") != CLIENT_GAVE_UP:
        return
    ctx.emit("message", {"messageRef": ctx.next_ref("msg"), "streaming": False,
                         "text": f"The delegate_task call for {_label(call)} failed (fetch failed); "
                                 "delegating it again."})
    await _tool(ctx, "delegate_task", call)


async def _read_tasks(ctx: TurnContext, task_ids: tuple[str, ...]) -> None:
    for task_id in task_ids:
        result = await _tool(ctx, "task_status", {"taskId": task_id})
        status = result.get("status", result.get("code", "unknown"))
        summary = result.get("summary") or result.get("message") or ""
        ctx.replies.append(f"{task_id}: {status}" + (f": {summary}" if summary else ""))
