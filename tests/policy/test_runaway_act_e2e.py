"""`force-stop` on `provider-active-after-interrupt` (T3 #5587), end to end: a real `t3tui
watch --act` process, the reference backend's runaway provider (the run ended `interrupted`,
its turn's real process runs on). The policy detaches the thread's provider session, the
process ends and the finding clears; the journal says so."""

from __future__ import annotations

import json
import os
import signal
from datetime import UTC, datetime
from pathlib import Path

import pytest

from t3tui.backend import scenarios
from t3tui.backend.testing import pid_alive, running_backend, wait_until
from tests.backend.transport.test_commands import agent_pids_running
from tests.headless.test_commands_e2e import active_run
from tests.policy.test_watch_act_e2e import sent
from tests.policy.watcher import watching

pytestmark = pytest.mark.e2e
POLICY = ('[[policy]]\nwhen = "provider-active-after-interrupt"\nafter = "1s"\n'
          'do = "force-stop"\n')


def without_the_interrupt(tmp: Path) -> Path:
    """The runaway scenario up to its interrupt: the test sends it once the watch looks (a
    finding that began before `watch` first synchronized is history, never acted on)."""
    spec = json.loads((Path(scenarios.__file__).parent / "runaway-provider.json").read_text())
    spec["steps"] = [s for s in spec["steps"] if "interrupt" not in s and "pauseMs" not in s]
    path = tmp / "runaway-until-stop.json"
    path.write_text(json.dumps(spec))
    return path


async def test_a_force_stop_policy_ends_a_runaway_provider(tmp_path: Path) -> None:
    sleep = 600 + 61.25  # a sleep length no other test uses: its processes are found by it
    agents: set[int] = set()
    async with running_backend(scenario=without_the_interrupt(tmp_path),
                               scenario_params={"sleep": sleep}) as backend, \
            watching(backend, policy=POLICY, tmp=tmp_path) as watch:
        try:
            agents = await wait_until(lambda: agent_pids_running(f"sleep {sleep:g}"),
                                      timeout=20, what="the child's command")
            [task] = backend.engine.state("thread-runaway").values("subagents")
            child = task["childThreadId"]
            run_id = await wait_until(lambda: active_run(backend, child), timeout=15)
            await watch.looked_again(datetime.now(UTC), 0)  # synchronized and evaluating
            await backend.engine.dispatch({"type": "run.interrupt", "commandId": "ui-stop-1",
                                           "threadId": child, "runId": run_id})
            [record] = await watch.wait_for(
                lambda: watch.policy(policy=1, verdict="act", done=True), 60,
                "policy 1's finished run")
            assert record["threadId"] == child, record
            assert record["rule"] == "provider-active-after-interrupt", record
            assert record["result"] == "ok", record
            assert [s[:2] for s in sent(record)] == [("force-stop", "provider-session.detach")]
            await wait_until(lambda: not any(pid_alive(pid) for pid in agents),
                             timeout=15, what="the runaway's processes end")
            turns = backend.engine.state(child).values("providerTurns")
            assert all(t["status"] != "running" for t in turns), turns
        finally:
            for pid in agents:  # never leave a sleeper behind, whatever failed
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)
