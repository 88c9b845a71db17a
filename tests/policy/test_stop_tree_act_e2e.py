"""`stop-tree` by policy, end to end: a real `t3tui watch --act` process, the reference
backend's real agents. A parent's `delegate_task` wait dies at the agent client's own tool
ceiling (T3 #11168) and the agent delegates the same work again: two children run `sleep` in
the same checkout and the parent is flagged `duplicate_child`. The policy stops the parent's
whole tree as `I` does: each child's run first, then the parent's, each confirmed from the
stream; the children's processes end and the journal says what was sent. And on a parent
whose only work left below is a runaway child (T3 #5587: its run ended interrupted, its
provider runs on), the policy's tree stop is the forced stop of that child, as `I`'s is."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from t3tui.actions.port import SessionPort
from t3tui.backend import scenarios
from t3tui.backend.testing import pid_alive, running_backend, wait_until
from t3tui.model.findings import STUCK, Finding
from t3tui.policy import parse_text
from t3tui.policy.engine import Engine
from tests.backend.transport.test_commands import agent_pids_running
from tests.headless.test_commands_e2e import active_run, launch
from tests.policy.hanging import now
from tests.policy.test_watch_act_e2e import sent
from tests.policy.watcher import watching
from tests.runaway import PARENT, watched_runaway

pytestmark = pytest.mark.e2e
POLICY = '[[policy]]\nwhen = "duplicate_child"\nafter = "1s"\ndo = "stop-tree"\n'
SLEEP = 600 + 67.25  # a sleep length no other test uses: its processes are found by it


def duplicating_provider(tmp: Path) -> Path:
    """The duplicate-delegation scenario's providers with no thread launched: the test
    launches the parent once the watch looks (a finding that began before `watch` first
    synchronized is history, never acted on). The tool ceiling is short, so the duplicate
    comes soon after the launch."""
    spec = json.loads((Path(scenarios.__file__).parent / "duplicate-delegation.json").read_text())
    spec["steps"] = []
    spec["params"] = {**spec["params"], "toolTimeoutMs": 1500}
    path = tmp / "duplicating.json"
    path.write_text(json.dumps(spec))
    return path


async def test_a_stop_tree_policy_stops_every_run_of_the_tree_children_first(
        tmp_path: Path) -> None:
    agents: set[int] = set()
    async with running_backend(scenario=duplicating_provider(tmp_path)) as backend, \
            watching(backend, policy=POLICY, tmp=tmp_path) as watch:
        try:
            await watch.looked_again(datetime.now(UTC), 0)  # synchronized and evaluating
            task = f"Run `sleep {SLEEP:g}`, then reply AUDIT_DONE"
            parent = await launch(backend, "delegate_task " + json.dumps(
                {"task": task, "title": "Audit the repo", "mode": "wait",
                 "timeoutMs": 3600000}) + "\nReply Audit delegated.", title="Audit, twice")
            def children() -> list[str]:
                return [r.id for r in backend.engine.shell_snapshot().threads
                        if r.lineage.parent_thread_id == parent and r.active_run_id]

            kids = await wait_until(lambda: c if len(c := children()) == 2 else None,
                                    timeout=30, what="the duplicate child running")
            parent_run = active_run(backend, parent)  # the run whose wait the children hold
            assert parent_run is not None
            agents = await wait_until(lambda: agent_pids_running(f"sleep {SLEEP:g}"),
                                      timeout=30, what="the children's commands")
            [record] = await watch.wait_for(
                lambda: watch.policy(policy=1, verdict="act", done=True), 60,
                "policy 1's finished run")
            assert record["threadId"] == parent, record
            assert record["kind"] == "policy" and record["result"] == "ok", record
            stops = sent(record)
            # deepest first: both children, then the parent whose wait they held, unless its
            # run ended by itself once its wait returned (then there is nothing left to send;
            # a new run begun by then is the one stopped); then a run the children's results
            # started once the walk had passed the parent, if it was still under way
            assert 2 <= len(stops) <= 4, stops
            assert [s[:2] for s in stops] == [("stop-tree", "run.interrupt")] * len(stops), stops
            assert sorted(s[2] for s in stops[:2]) == sorted(kids), stops
            assert all(s[2] == parent for s in stops[2:]), stops
            for thread in kids:
                assert active_run(backend, thread) is None, thread
            assert active_run(backend, parent) != parent_run
            await wait_until(lambda: not any(pid_alive(pid) for pid in agents),
                             timeout=15, what="the children's processes end")
        finally:
            for pid in agents:  # never leave a sleeper behind, whatever failed
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)


async def test_a_stop_tree_policy_on_a_runaways_parent_force_stops_the_runaway() -> None:
    async with watched_runaway(600 + 71.25) as run:  # a sleep length no other test uses
        port = SessionPort(run.session, run.sup)
        parent = port.supervisor.row(PARENT, now())
        assert parent is not None and parent.active_run_id is None
        said = []
        engine = Engine(parse_text(POLICY.replace("duplicate_child", "no-progress"), "p"),
                        clock=now, emit=said.append, timeout=20)
        start = now()
        engine.start(start)
        # whatever flagged the parent: the tree stop is the policy's, on the parent
        finding = Finding(STUCK, PARENT, "no-progress", "quiet", {}, start + timedelta(seconds=1))
        engine.rows_changed({PARENT: replace(parent, findings=(finding,))})
        for seconds in (2, 4):  # first seen, then held past the policy's `after`
            engine.tick(port, start + timedelta(seconds=seconds), live=True, synchronized=True)
        await engine.idle()
        [step] = said[-1].steps
        assert (step.action, step.outcome) == ("stop-tree", "ok"), step
        assert [(c["type"], c.get("threadId")) for c in step.sent] == [
            ("provider-session.detach", run.found.thread_id)], step.sent
        await wait_until(lambda: not any(pid_alive(pid) for pid in run.agents),
                         timeout=15, what="the runaway's processes end")
