"""Proof from the machine, end to end: the reference backend's scripted agents write Codex
rollouts; t3tui reads them next to the live stream (real sockets, real files) and says
`provider_finished_unheard` only when the provider finished a turn T3 never heard of."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import pytest

from t3tui.backend.provider.faults import SETTLE_DROPS_CHILD_SUBSCRIPTION
from t3tui.backend.testing import running_backend
from t3tui.model import status_document
from t3tui.model.provider_record import FOUND, MISSING
from t3tui.proof.homes import ProofHomes
from tests.headless.cli import cli, server_args
from tests.proof.helpers import (
    rollout_of,
    rollouts,
    settle_and_send,
    view_with_records,
    wait_for_marker,
)

pytestmark = pytest.mark.e2e
UNHEARD = "provider_finished_unheard"


def digest(paths) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


async def test_seed_004_leaves_the_triagers_trail_and_status_says_t3_never_heard(tmp_path) -> None:
    state = tmp_path / "t3"
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION], t3_state=state
    ) as backend:
        home = backend.data_dir / "codex-home"
        child = await settle_and_send(backend, "Reply PONG")
        done = await wait_for_marker(backend, child, "task_complete")
        # the trail: the child's rollout says PONG and task_complete ...
        assert done["payload"]["last_agent_message"] == "PONG"
        # ... while T3 still shows its run running
        assert backend.engine.shell_row(child).activity_run_status == "running"
        before = digest(rollouts(home))

        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60  # the dwell, and room for a loaded machine
        while True:  # the verdict waits its dwell (10 s) after task_complete
            result = await cli("status", "--json", "--codex-home", str(home), "--claude-home", "off",
                               "--t3-home", str(state), *server_args(backend))
            doc = result.json()
            if any(f["kind"] == UNHEARD for f in doc["findings"]) or loop.time() > deadline:
                break
            await asyncio.sleep(0.5)
        unheard = [f for f in doc["findings"] if f["kind"] == UNHEARD]
        assert [f["threadId"] for f in unheard] == [child]  # once, on the child only
        assert result.code == 1
        [finding] = unheard
        ev = finding["evidence"]
        assert ev["recordFile"] == str(rollout_of(backend, child))
        assert ev["marker"] == "task_complete" and ev["lastMessage"] == "PONG"
        assert ev["recordStatus"] == "completed" and ev["t3TurnStatus"] == "running"
        assert 'last message "PONG"' in finding["reason"] and "T3 never heard" in finding["reason"]
        # T3's own protocol log agrees: no NTIVE completion for the child's turn
        assert ev["t3ProtocolLog"] == "never-received"
        assert "no NTIVE completion" in finding["reason"]
        log_text = Path(ev["t3ProtocolLogFile"]).read_text()
        assert "ORCH:" in log_text and "NTIVE:" in log_text  # READY's turn was heard
        rows = {t["id"]: t for t in doc["threads"]}
        assert rows[child]["state"] == "stuck"

        human = await cli("status", "--codex-home", str(home), *server_args(backend))
        assert "unheard" in human.out and "T3 never heard" in human.out
        report = await cli("report", "--codex-home", str(home), "--t3-home", str(state),
                           *server_args(backend))
        assert report.code == 0, report.err
        assert "provider-finished-unheard" in report.out and 'last message "PONG"' in report.out
        assert digest(rollouts(home)) == before  # read, never written

        # forward (the backend then writes the parent's new turn): the answer T3 never received goes to the parent, quoted from the record
        sent = await cli("forward", child, "--yes", "--codex-home", str(home), *server_args(backend))
        assert sent.code == 0, sent.out + sent.err
        assert "T3 never received it" in sent.out and "> PONG" in sent.out
        texts = [m["text"] for m in backend.engine.projection_wire("thread-parent")["messages"]]
        assert any("> PONG" in t and "task_complete" in t for t in texts)


async def test_no_record_is_no_verdict_and_a_working_provider_is_not_flagged(tmp_path) -> None:
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]
    ) as backend:
        home = backend.data_dir / "codex-home"
        child = await settle_and_send(backend, "Hang")
        await wait_for_marker(backend, child, "task_started")

        # the provider is still working on the turn: far past any dwell, no verdict
        view, sup = await view_with_records(backend, ProofHomes(home, None), ahead_s=3600)
        assert sup.provider_record(child).state == FOUND
        assert [f for f in view.findings if f.kind == UNHEARD] == []

        # no record on this machine (an empty home): "no provider record", never a verdict
        empty = tmp_path / "empty-codex"
        empty.mkdir()
        view, sup = await view_with_records(backend, ProofHomes(empty, None), ahead_s=3600)
        assert sup.provider_record(child).state == MISSING
        assert [f for f in view.findings if f.kind == UNHEARD] == []


async def test_healthy_child_whose_turn_t3_heard_is_not_flagged(tmp_path) -> None:
    state = tmp_path / "t3"
    async with running_backend(scenario="settle-unsubscribe", t3_state=state) as backend:
        home = backend.data_dir / "codex-home"
        child = await settle_and_send(backend, "Reply PONG")
        await wait_for_marker(backend, child, "task_complete")
        logs = state / "userdata" / "logs" / "provider"
        view, sup = await view_with_records(backend, ProofHomes(home, None, logs), ahead_s=3600)
        record = sup.provider_record(child)
        assert record.state == FOUND and record.turns[-1].last_message == "PONG"
        # the protocol log shows T3 received the completion (NTIVE) and projected it (ORCH)
        log = sup.protocol_log(child)
        assert record.turns[-1].turn_id in log.ntive_completed and log.orch_terminal
        assert [f for f in view.findings if f.kind == UNHEARD] == []


async def test_a_record_with_secrets_is_quoted_by_markers_and_a_short_excerpt_only() -> None:
    secret = "sk-live-0123456789abcdefSECRET"
    reply = "all done " + "lorem ipsum " * 30 + f"the key is {secret}"  # one sentence
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]
    ) as backend:
        home = backend.data_dir / "codex-home"
        child = await settle_and_send(backend, f"Reply exactly {reply}")
        await wait_for_marker(backend, child, "task_complete")
        assert secret in rollout_of(backend, child).read_text()  # the record holds it whole
        view, sup = await view_with_records(backend, ProofHomes(home, None), ahead_s=60)
        [finding] = [f for f in view.findings if f.kind == UNHEARD]
        doc = status_document(view)
        from_record = json.dumps(doc["findings"], default=str)
        assert secret not in from_record, from_record
        assert "lorem ipsum" in from_record, from_record
        where = [k for t in doc["threads"] for k, v in t.items() if secret in str(v)]
        assert set(where) <= {"latestMessage"}, where  # T3's own copy of the user's message
        assert len(finding.evidence["lastMessage"]) <= 120
        # the whole text stays in memory only, for forwarding it to the parent
        assert sup.provider_record(child).turns[-1].last_message.endswith(secret)


async def test_the_record_sharpens_provider_active_after_interrupt() -> None:
    async with running_backend(scenario="runaway-provider", scenario_params={"sleep": 60}) as backend:
        home = backend.data_dir / "codex-home"

        async def runaway():
            view, _ = await view_with_records(backend, ProofHomes(home, None), ahead_s=60)
            found = [f for f in view.findings if f.rule == "provider-active-after-interrupt"]
            return found[0] if found else None

        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60  # room for a loaded machine
        while (found := await runaway()) is None and loop.time() < deadline:
            await asyncio.sleep(0.5)
        assert found is not None
        # the rollout has the turn's task_started and no end marker: Codex says it still works
        assert found.evidence["recordStatus"] == "running"
        assert "own record shows the turn still open" in found.reason
        assert found.evidence["recordFile"].endswith(".jsonl")
