"""A Claude-driven thread: the reference backend's `claudeAgent` instance writes Claude Code
transcripts (`<claude home>/projects/<slug>/<session id>.jsonl`); t3tui follows them by time
and gives the seed 004 verdict for Claude as it does for Codex."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from t3tui.backend import scenarios
from t3tui.backend.provider.faults import SETTLE_DROPS_CHILD_SUBSCRIPTION
from t3tui.backend.testing import running_backend, wait_until
from t3tui.model.findings import PROVIDER_FINISHED_UNHEARD
from t3tui.model.provider_record import CLAUDE, COMPLETED, FOUND
from t3tui.proof.homes import ProofHomes
from tests.proof.helpers import native_of, settle_and_send, view_with_records

pytestmark = pytest.mark.e2e


def scenario(tmp_path, faults: list[str]):
    # the bundled seed 004 scenario, on a Claude-driven instance
    base = json.loads((Path(scenarios.__file__).parent / "settle-unsubscribe.json").read_text())
    base["name"] = "settle-unsubscribe-claude"
    base["providers"] = [{"name": "claude", "driver": "claudeAgent", "faults": faults}]
    base["steps"][0]["provider"] = "claude"
    path = tmp_path / "claude.json"
    path.write_text(json.dumps(base))
    return path


def transcript_lines(home, native: str) -> list[dict]:
    found = list(home.glob(f"projects/*/{native}.jsonl"))
    if not found:
        return []
    return [json.loads(x) for x in found[0].read_text().splitlines() if x.strip()]


async def test_a_claude_child_that_finished_unheard_is_proven_from_its_transcript(tmp_path) -> None:
    async with running_backend(scenario=scenario(tmp_path, [SETTLE_DROPS_CHILD_SUBSCRIPTION])) as backend:
        home = backend.data_dir / "claude-home"
        child = await settle_and_send(backend, "Reply PONG")
        native = native_of(backend, child)

        def answered() -> bool:
            lines = transcript_lines(home, native)
            return any(ln["type"] == "assistant" and ln["message"]["stop_reason"] == "end_turn"
                       and ln["message"]["content"][0]["text"] == "PONG" for ln in lines)

        await wait_until(answered, timeout=15, what="PONG in the Claude transcript")
        assert all(ln["sessionId"] == native for ln in transcript_lines(home, native))
        assert backend.engine.shell_row(child).activity_run_status == "running"

        view, sup = await view_with_records(backend, ProofHomes(None, home), ahead_s=60)
        record = sup.provider_record(child)
        assert (record.state, record.driver) == (FOUND, CLAUDE)
        assert record.turns[-1].status == COMPLETED and record.turns[-1].last_message == "PONG"
        [finding] = [f for f in view.findings if f.kind == PROVIDER_FINISHED_UNHEARD]
        assert finding.thread_id == child
        assert finding.reason.startswith("Claude Code finished this turn")
        assert finding.evidence["marker"] in ("end_turn", "turn_duration")


async def test_a_healthy_claude_child_is_not_flagged(tmp_path) -> None:
    async with running_backend(scenario=scenario(tmp_path, [])) as backend:
        home = backend.data_dir / "claude-home"
        child = await settle_and_send(backend, "Reply PONG")
        await wait_until(lambda: backend.engine.shell_row(child).activity_run_status is None
                         and backend.engine.shell_row(child).status == "completed",
                         timeout=15, what="the child's run completes")
        view, sup = await view_with_records(backend, ProofHomes(None, home), ahead_s=60)
        assert sup.provider_record(child).state == FOUND
        assert [f for f in view.findings if f.kind == PROVIDER_FINISHED_UNHEARD] == []
