"""A backend restarted on the same data dir resumes from its stored state: the scenario that
ran there is not run again (its waits would wait for runs the restart ended, and log that they
never came), and one that a stop cut short is not finished by a server whose runs are gone."""

from __future__ import annotations

import json
import logging

import pytest

from t3tui.backend.testing import running_backend, wait_until
from tests.backend.transport.test_commands import agent_pids_running

pytestmark = pytest.mark.e2e


def turns_started(engine) -> int:
    return sum(1 for e in engine.provider_log() if e["event"] == "turn.started")


def problems(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_restart_after_the_scenario_ran_does_not_run_its_steps_again(tmp_path, caplog):
    params = {"sleep": 611.75, "waitMs": 4000}
    async with running_backend(scenario="runaway-provider", scenario_params=params,
                               data_dir=tmp_path) as first:
        assert turns_started(first.engine) >= 2  # the parent's and the child's
    runs = {tid: len(state.runs()) for tid, state in first.engine.core.threads.items()}
    assert len(runs) == 2
    caplog.clear()
    with caplog.at_level(logging.INFO):
        async with running_backend(scenario="runaway-provider", scenario_params=params,
                                   data_dir=tmp_path, scenario_in_background=True) as second:
            assert second.scenario_task is not None
            await second.scenario_task
            engine = second.engine
            assert {tid: len(s.runs()) for tid, s in engine.core.threads.items()} == runs
            assert turns_started(engine) == 0
            assert not agent_pids_running("sleep 611.75")
    assert problems(caplog) == []
    assert any("already ran" in r.getMessage() for r in caplog.records)


async def test_a_scenario_cut_short_is_not_finished_by_the_restart(tmp_path, caplog):
    path = tmp_path / "cut.json"
    path.write_text(json.dumps({
        "name": "cut", "providers": [{"name": "codex"}],
        "steps": [{"launch": "a", "text": "Run `sleep 612.25`, then reply A"},
                  {"waitIdle": "a", "timeoutMs": 120000},
                  {"launch": "b", "text": "Reply B"}]}))
    data = tmp_path / "data"
    async with running_backend(scenario=path, data_dir=data,
                               scenario_in_background=True) as first:
        await wait_until(lambda: agent_pids_running("sleep 612.25"), timeout=20,
                         what="step 2 waits on a's command")
    # the stop interrupted a's run: step 2's wait is over, but nothing of step 3 may follow
    caplog.clear()
    with caplog.at_level(logging.INFO):
        async with running_backend(scenario=path, data_dir=data,
                                   scenario_in_background=True) as second:
            assert second.scenario_task is not None
            await second.scenario_task
            assert set(second.engine.core.threads) == {"thread-a"}
            assert len(second.engine.state("thread-a").runs()) == 1
    [warning] = problems(caplog)
    assert "cut" in warning and "step 2" in warning
    assert first.scenario_task is not None and first.scenario_task.done()

