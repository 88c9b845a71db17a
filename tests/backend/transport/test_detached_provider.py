"""A provider that runs on after its run was interrupted (T3 #5587, the `runaway-provider`
scenario) is stopped when its thread's provider session is detached: a forced stop or a
settle ends the attachment, and with it the turn's processes (SIGTERM, then SIGKILL, the
whole process group). The thread's record says so: its provider turn ends `interrupted`."""

from __future__ import annotations

import os
import signal

import pytest

from t3tui.backend.testing import pid_alive, running_backend, wait_until
from tests.backend.transport.commands import fresh_id, settle
from tests.backend.transport.rawclient import RawRpc
from tests.backend.transport.test_commands import DISPATCH, PROJECTION, agent_pids_running

pytestmark = pytest.mark.e2e

def detach(thread_id: str, session_id: str) -> dict:
    return {"type": "provider-session.detach", "commandId": fresh_id("c-detach"),
            "threadId": thread_id, "providerSessionId": session_id,
            "reason": "Forced stop from the test."}


@pytest.mark.parametrize("how", ["forced stop", "settle"])
async def test_a_detached_runaway_provider_is_stopped_and_its_turn_says_so(how, request):
    # a sleep length no other test uses, so its processes are found by command line
    sleep = 600 + 17 * (1 + request.node.callspec.indices["how"]) + 0.25
    marker = f"sleep {sleep:g}"
    agents: set[int] = set()
    async with running_backend(scenario="runaway-provider",
                               scenario_params={"sleep": sleep}) as backend:
        try:
            engine = backend.engine
            [child] = [row["childThreadId"] for row in engine.state("thread-runaway")
                       .values("subagents")]
            agents = await wait_until(lambda: agent_pids_running(marker), timeout=20,
                                      what="the runaway child's command")
            async with await RawRpc.open(backend.url, backend.token) as client:
                projection = await client.ok(PROJECTION, {"threadId": child})
                [run] = projection["runs"]
                assert run["status"] == "interrupted"  # the run ended, the provider runs on
                [pturn] = projection["providerTurns"]
                assert pturn["status"] == "running"
                if how == "settle":
                    await client.ok(DISPATCH, settle(child))
                else:
                    [session] = [s for s in projection["providerSessions"]
                                 if s["status"] != "stopped"]
                    await client.ok(DISPATCH, detach(child, session["id"]))
                await wait_until(lambda: not any(pid_alive(pid) for pid in agents),
                                 timeout=15, what="the detached provider's processes end")
                await wait_until(
                    lambda: engine.state(child).values("providerTurns")[0]["status"] != "running",
                    timeout=10, what="the provider turn ends")
                view = await client.ok(PROJECTION, {"threadId": child})
            [turn] = view["providerTurns"]
            assert turn["status"] == "interrupted"
            assert all(t["status"] != "active" for t in view["providerThreads"])
            events = [e["event"] for e in engine.provider_log("codex")
                      if e.get("appThreadId") == child]
            assert "turn.interrupted" in events
        finally:
            for pid in agents:  # never leave a sleeper behind, whatever failed
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)
