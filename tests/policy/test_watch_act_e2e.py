"""`t3tui watch --act` end to end over real sockets: a real `t3tui watch` process against a
reference backend it did not start, with real agent processes and provider records."""

from __future__ import annotations

import asyncio
import http.server
import json
import signal
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from t3tui.backend.provider.faults import INTERRUPT_NEVER_LANDS, SETTLE_DROPS_CHILD_SUBSCRIPTION
from t3tui.backend.testing import RunningBackend, running_backend, wait_until
from tests.backend.transport.commands import settle
from tests.headless.cli import cli, server_args
from tests.headless.test_commands_e2e import WAIT_ON_HANGER, active_run, launch, running_child
from tests.policy.watcher import POLICY_004, watching
from tests.proof.helpers import PARENT, child_of, settle_and_send, wait_for_marker

pytestmark = pytest.mark.e2e


def parent_texts(backend: RunningBackend) -> list[str]:
    return [m["text"] for m in backend.engine.projection_wire(PARENT)["messages"]]


def sent(record: dict) -> list[tuple[str, str, str]]:
    return [(step["action"], command["type"], command.get("threadId", ""))
            for step in record["steps"] for command in step["sent"]]


async def test_seed_004_child_is_interrupted_and_its_answer_forwarded_once(tmp_path: Path) -> None:
    recording = tmp_path / "watch.ndjson.gz"
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]
    ) as backend, watching(backend, "--record", str(recording), tmp=tmp_path) as watch:
        child = await settle_and_send(backend, "Reply PONG")
        await wait_for_marker(backend, child, "task_complete")
        done = await watch.wait_for(
            lambda: watch.policy(policy=1, verdict="act", done=True),
            60, "policy 1's finished run")
        [record] = done
        assert record["threadId"] == child and record["rule"] == "provider-finished-unheard"
        assert record["result"] == "ok", record
        assert sent(record) == [("interrupt", "run.interrupt", child),
                                ("forward", "message.dispatch", PARENT)]
        [forwarded] = [t for t in parent_texts(backend) if "> PONG" in t]
        assert "T3 never received it" in forwarded and "task_complete" in forwarded
        assert active_run(backend, child) is None
        # once: the engine looked again 3 s on, and took no second run, sent no second message
        await watch.looked_again(record["at"], 3)
        assert len(watch.policy(policy=1, verdict="act")) == 2  # taken, then finished
        assert len([t for t in parent_texts(backend) if "> PONG" in t]) == 1
        assert watch.policy(policy=2) == []  # the interrupt landed: nothing to force
    # the journal is in the recording, and the triage report's "What was done" says who sent
    report = await cli("report", "--replay", str(recording), child)
    assert report.code == 0, report.err
    done = report.out.split("## What was done", 1)[1]
    assert "| run.interrupt (by policy 1) |" in done
    assert "| message.dispatch (by policy 1) |" in done


async def test_dry_run_prints_the_plan_and_sends_nothing(tmp_path: Path) -> None:
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]
    ) as backend, watching(backend, "--dry-run", tmp=tmp_path) as watch:
        child = await settle_and_send(backend, "Reply PONG")
        run_id = await wait_until(lambda: active_run(backend, child), timeout=15)
        [record] = await watch.wait_for(
            lambda: watch.policy(policy=1, verdict="dry-run", done=True), 60, "policy 1's plan")
        assert record["threadId"] == child and record["result"] == "dry-run"
        assert sent(record) == [("interrupt", "run.interrupt", child),
                                ("forward", "message.dispatch", PARENT)]
        interrupt = record["steps"][0]["sent"][0]
        assert interrupt["runId"] == run_id
        # T3 shows and logs the reason: a policy's stop says so, not "user interrupt"
        assert interrupt["reason"].startswith("t3tui: policy 1 (provider-finished-unheard held")
        assert "> PONG" in record["steps"][1]["sent"][0]["text"]
        # the finding still holds 2 s on (nothing was sent), judged again: no second plan
        await watch.looked_again(record["at"], 2, thread=child, rule="provider-finished-unheard")
        assert active_run(backend, child) == run_id  # nothing was sent
        assert [t for t in parent_texts(backend) if "> PONG" in t] == []
        assert len(watch.policy(policy=1)) == 1  # the decision, said once with its plan


async def test_a_stop_that_never_lands_is_force_stopped(tmp_path: Path) -> None:
    async with running_backend(faults=[INTERRUPT_NEVER_LANDS]) as backend, \
            watching(backend, tmp=tmp_path) as watch:
        parent = await launch(backend, WAIT_ON_HANGER % 1, title="Waits on its child")
        thread = await wait_until(lambda: running_child(backend, parent), timeout=15)
        run_id = await wait_until(lambda: active_run(backend, thread), timeout=15)
        # the user pressed Stop in T3's own UI: accepted, never lands (not a t3tui action)
        await backend.engine.dispatch({"type": "run.interrupt", "commandId": "ui-stop-1",
                                       "threadId": thread, "runId": run_id})
        [record] = await watch.wait_for(
            lambda: watch.policy(policy=2, verdict="act", done=True),
            60, "policy 2's finished run")
        assert record["threadId"] == thread and record["rule"] == "interrupt-not-landed"
        assert record["result"] == "ok", record
        assert [s[:2] for s in sent(record)] == [("force-stop", "provider-session.detach")]
        assert record["steps"][0]["sent"][0]["reason"].startswith("t3tui: policy 2 (")
        assert active_run(backend, thread) is None
        assert watch.policy(policy=1) == []
        # the parent's hung wait returns: it goes on to its own answer
        await wait_until(lambda: any("PARENT_DONE" in m["text"] for m in
                                     backend.engine.projection_wire(parent)["messages"]),
                         timeout=30)


async def test_a_refused_action_is_journaled_with_the_servers_words_and_not_retried(
        tmp_path: Path) -> None:
    policy = '[[policy]]\nwhen = "interrupt-not-landed"\nafter = "1s"\ndo = "acknowledge"\n'
    async with running_backend(faults=[INTERRUPT_NEVER_LANDS]) as backend, \
            watching(backend, policy=policy, tmp=tmp_path) as watch:
        parent = await launch(backend, WAIT_ON_HANGER % 2, title="Waits on its child")
        thread = await wait_until(lambda: running_child(backend, parent), timeout=15)
        run_id = await wait_until(lambda: active_run(backend, thread), timeout=15)
        await backend.engine.dispatch({"type": "run.interrupt", "commandId": "ui-stop-2",
                                       "threadId": thread, "runId": run_id})
        [record] = await watch.wait_for(lambda: watch.policy(policy=1, done=True), 60,
                                        "policy 1's finished run")
        [step] = record["steps"]
        assert record["result"] == "refused" and step["outcome"] == "refused", record
        assert step["text"].startswith("server refused: ")
        assert [c["type"] for c in step["sent"]] == [
            "delegated_task.completion-delivery.acknowledge"]
        # the finding still holds, judged again 3 s on: no second try
        await watch.looked_again(record["at"], 3, thread=thread, rule="interrupt-not-landed")
        assert len(watch.policy(policy=1)) == 2  # the decision and its outcome, once


async def test_a_policy_file_that_does_not_check_runs_nothing(tmp_path: Path) -> None:
    async with running_backend() as backend:
        bad = '[[policy]]\nwhen = "no-progres"\nafter = "1m"\ndo = "checkin"\n'
        path = tmp_path / "bad.toml"
        path.write_text(bad)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "t3tui", "watch", "--act", "--policy", str(path), "--url",
            backend.url, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env={"T3TUI_TOKEN": backend.token, "PATH": "/usr/bin:/bin"})
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 2
        lines = err.decode().strip().splitlines()
        assert len(lines) == 1 and "policy 1 (when = 'no-progres')" in lines[0], lines
        assert "unknown finding or rule" in lines[0]
        assert out == b""


async def stop_that_never_lands(backend: RunningBackend, n: int) -> tuple[str, str]:
    """A parent waiting on a hung child, and a stop pressed in T3's own UI on the child."""
    parent = await launch(backend, WAIT_ON_HANGER % n, title=f"Waits on its child {n}")
    child = await wait_until(lambda: running_child(backend, parent), timeout=15)
    run_id = await wait_until(lambda: active_run(backend, child), timeout=15)
    await backend.engine.dispatch({"type": "run.interrupt", "commandId": f"ui-stop-{n}",
                                   "threadId": child, "runId": run_id})
    return parent, child


async def test_the_hourly_rate_limit_holds_across_threads(tmp_path: Path) -> None:
    policy = ('[policies]\nper_hour = 1\n[[policy]]\nwhen = "interrupt-not-landed"\n'
              'after = "1s"\ndo = "force-stop"\n')
    async with running_backend(faults=[INTERRUPT_NEVER_LANDS]) as backend, \
            watching(backend, policy=policy, tmp=tmp_path) as watch:
        _, first = await stop_that_never_lands(backend, 3)
        _, second = await stop_that_never_lands(backend, 4)
        await watch.wait_for(lambda: len(watch.policy(policy=1, done=True))
                             + len(watch.policy(policy=1, verdict="skip")) >= 2, 60,
                             "both decisions")
        acted = watch.policy(policy=1, verdict="act", done=True)
        [skipped] = watch.policy(policy=1, verdict="skip")
        assert [r["threadId"] for r in acted] == [first] and acted[0]["result"] == "ok"
        assert skipped["threadId"] == second and skipped["code"] == "rate-hour"
        assert "gave up: 1 policy run(s) within the hour" in skipped["why"]
        await watch.looked_again(skipped["at"], 3, thread=second, rule="interrupt-not-landed")
        assert active_run(backend, second) is not None  # left as it was, said once
        assert len(watch.policy(policy=1, threadId=second)) == 1


async def test_healthy_controls_are_never_touched(tmp_path: Path) -> None:
    """A stop that lands late but within the dwell (15 s of the rule's 20 s), a slow child
    still progressing, a thread waiting on a human: no finding, no decision, nothing sent."""
    scenario = tmp_path / "late-stop.json"
    scenario.write_text(json.dumps({
        "name": "late-stop", "description": "a stop that lands after 15 s",
        "providers": [{"name": "codex", "interruptDelayMs": 15000}], "steps": []}))
    policy = POLICY_004 + ('[[policy]]\nwhen = "stuck"\nafter = "1s"\ndo = "interrupt"\n'
                           '[[policy]]\nwhen = "no-progress"\nafter = "1s"\ndo = "checkin"\n')
    async with running_backend(scenario=scenario) as backend, \
            watching(backend, policy=policy, tmp=tmp_path) as watch:
        stopped_at = datetime.now(UTC)
        _, child = await stop_that_never_lands(backend, 5)  # lands at 15 s
        slow = await launch(backend, "Run `for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo tick $i; "
                            "sleep 3; done`", title="Slow but progressing")
        human = await launch(backend, "Ask for approval to run `echo DEPLOYED`",
                             title="Needs a human")
        await wait_until(lambda: active_run(backend, child) is None, timeout=30)
        # looked at again past the rule's 20 s dwell and the policy's own 1 s
        await watch.looked_again(stopped_at, 22)
        assert watch.policy() == [], watch.policy()
        assert [r for r in watch.records if r.get("kind") == "finding"] == []
        states = {(r.get("threadId"), r.get("to")) for r in watch.records}
        assert (human, "needs-input") in states, states
        assert (slow, "running") in states and active_run(backend, slow) is not None


async def test_a_thread_the_user_acted_on_from_a_headless_command_is_left_alone(
        tmp_path: Path) -> None:
    """`t3tui checkin` in another process is the user's own action: the watch --act leaves
    that thread alone for user_quiet, and says so once."""
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]
    ) as backend, watching(backend, tmp=tmp_path) as watch:
        child = child_of(backend)
        await backend.engine.dispatch(settle(PARENT))
        # the user's own check-in (the turn seed 004 loses), from a headless command
        result = await cli("checkin", child, "--timeout", "3", *server_args(backend))
        assert result.code == 1, result  # unanswered
        [held] = await watch.wait_for(lambda: watch.policy(policy=1, verdict="skip"), 60,
                                      "policy 1 held")
        assert held["threadId"] == child and held["code"] == "user-acted", held
        assert "you acted on this thread from t3tui" in held["why"]
        await watch.looked_again(held["at"], 3, thread=child, rule="provider-finished-unheard")
        assert watch.policy(policy=1, verdict="act") == []
        assert [t for t in parent_texts(backend) if "> PONG" in t] == []


async def test_the_kill_switch_a_signal_and_the_policy_file(tmp_path: Path) -> None:
    async with running_backend() as backend, watching(backend, tmp=tmp_path) as watch:
        def said(text: str) -> list[dict]:
            return [r for r in watch.records if r.get("kind") == "policies" and text in r["text"]]

        watch.proc.send_signal(signal.SIGUSR1)
        [off] = await watch.wait_for(lambda: said("policies off (SIGUSR1)"), 15, "off")
        assert off["on"] is False
        watch.proc.send_signal(signal.SIGUSR1)
        await watch.wait_for(lambda: said("policies on (SIGUSR1)"), 15, "on again")
        path = tmp_path / "policies.toml"
        path.write_text(POLICY_004.replace("force-stop", "reboot"))
        [broken] = await watch.wait_for(lambda: said("unknown action 'reboot'"), 15, "broken")
        assert broken["on"] is False and broken["text"].startswith("policies off: ")
        path.write_text(POLICY_004)
        [back] = await watch.wait_for(lambda: said("policies re-read"), 15, "re-read")
        assert back["on"] is True
        path.unlink()
        [gone] = await watch.wait_for(lambda: said("was removed"), 15, "removed")
        assert gone["on"] is False
        assert watch.proc.returncode is None  # none of it stopped the watch


async def test_notify_runs_a_command_and_posts_the_decision(tmp_path: Path) -> None:
    got: list[bytes] = []

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            got.append(self.rfile.read(int(self.headers["content-length"])))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *_args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    out = tmp_path / "notified.json"
    writer = f"import sys; open({str(out)!r}, 'w').write(sys.stdin.read())"
    policy = (f'[[policy]]\nwhen = "provider-finished-unheard"\nafter = "1s"\ndo = "notify"\n'
              f'notify = {{ command = {json.dumps([sys.executable, "-c", writer])} }}\n'
              f'[[policy]]\nwhen = "provider-finished-unheard"\nafter = "1s"\ndo = "notify"\n'
              f'notify = {{ url = "http://127.0.0.1:{server.server_port}/hook" }}\n')
    try:
        async with running_backend(
            scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]
        ) as backend, watching(backend, policy=policy, tmp=tmp_path) as watch:
            child = await settle_and_send(backend, "Reply PONG")
            done = await watch.wait_for(lambda: len(watch.policy(done=True)) == 2 and
                                        watch.policy(done=True), 60, "both notifications")
            assert {r["result"] for r in done} == {"ok"}, done
            for record in (json.loads(out.read_text()), json.loads(got[0])):
                assert record["threadId"] == child and record["rule"] == "provider-finished-unheard"
                assert record["verdict"] == "act" and backend.token not in json.dumps(record)
            assert active_run(backend, child) is not None  # notify changes nothing
    finally:
        server.shutdown()


async def test_with_two_environments_each_action_goes_to_the_threads_own_server(
        tmp_path: Path) -> None:
    """Twin servers (the same parent id on both); seed 004 on `laptop` only: the policy's
    commands go to laptop, and devbox (its twin, healthy) is never touched."""
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]
    ) as laptop, running_backend(scenario="settle-unsubscribe") as devbox, \
            watching(laptop, tmp=tmp_path, also=devbox) as watch:
        child = await settle_and_send(laptop, "Reply PONG")
        assert child_of(devbox) != child  # the twin's child: its own provider session
        [record] = await watch.wait_for(
            lambda: watch.policy(policy=1, verdict="act", done=True), 60, "policy 1's run")
        assert record["environment"] == "laptop" and record["result"] == "ok", record
        assert sent(record) == [("interrupt", "run.interrupt", child),
                                ("forward", "message.dispatch", PARENT)]
        assert len([t for t in parent_texts(laptop) if "> PONG" in t]) == 1
        twin = [m["text"] for m in devbox.engine.projection_wire(PARENT)["messages"]]
        assert [t for t in twin if "PONG" in t] == []
        assert active_run(laptop, child) is None
        assert not [r for r in watch.records if r.get("kind") == "policy"
                    and r.get("environment") == "devbox"]
