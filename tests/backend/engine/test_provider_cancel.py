"""The scripted provider stops an interrupted turn even if its tool host swallows the cancel."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from t3tui.backend.engine.config import utc_now
from t3tui.backend.provider import Notification, ProviderInstanceConfig, ScriptedProvider
from t3tui.backend.testing import wait_until
from tests.backend.engine.harness import delegate_call


class SwallowingHost:
    """A tool host with Python 3.11's `wait_for` flaw: it ignores a cancel and returns later."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.release = asyncio.Event()

    async def call_tool(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(args)
        while True:
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                continue
            return {"status": "completed", "waitTimedOut": False}


async def test_a_swallowed_cancel_still_ends_the_turn_before_the_next_serial_call(
        tmp_path: Path) -> None:
    provider = ScriptedProvider(ProviderInstanceConfig(tool_dispatch="serial"), cwd=tmp_path,
                                log_path=None, clock=utc_now)
    notes: list[Notification] = []
    provider.sink = notes.append
    session = provider.open_session()
    native = provider.start_thread(session, "thread-1")
    host = SwallowingHost()
    text = "\n".join(delegate_call(task=f"Reply {n}", mode="wait") for n in "AB") + "\nReply X"
    ref = provider.new_turn_ref()
    try:
        provider.start_turn(session, native, ref, text, host, {})
        await wait_until(lambda: host.calls, timeout=5, what="the first call is in flight")
        assert provider.interrupt_turn(ref)
        host.release.set()
        await wait_until(lambda: not provider.turn_is_live(ref), timeout=5, what="turn ended")
    finally:
        await provider.close()
    assert [n.kind for n in notes if n.kind in ("completed", "interrupted")] == ["interrupted"]
    assert len(host.calls) == 1
    tools = [n.data["status"] for n in notes
             if n.kind == "item" and n.data.get("type") == "dynamic_tool"]
    assert tools == ["running", "interrupted"]
    assert [e["event"] for e in provider.log.entries if e["event"].startswith("tool.")] == [
        "tool.call"]
