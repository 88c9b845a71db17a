"""A runaway provider (T3 #5587: the run ended `interrupted`, the provider turn runs on) is
stopped from the CLI: plain `t3tui interrupt` names the forced stop as the remedy and stops
nothing; `--force` detaches the thread's provider session, the agent's processes end and the
finding clears. The reference backend's `runaway-provider` scenario, real agent processes,
the default dwells (a one-shot command sees the finding only once its dwell held)."""

from __future__ import annotations

import pytest

from t3tui.backend.testing import pid_alive, wait_until
from tests.headless.cli import cli, server_args
from tests.headless.test_second_wave_e2e import now, rule_on
from tests.runaway import RULE, watched_runaway

pytestmark = pytest.mark.e2e


async def test_interrupt_names_the_forced_stop_and_force_ends_a_runaway_provider() -> None:
    async with watched_runaway(600 + 53.25) as run:  # a sleep length no other test uses
        backend, agents, session, sup = run.backend, run.agents, run.session, run.sup
        child = run.found.thread_id

        plain = await cli("interrupt", child, *server_args(backend))
        assert plain.code == 1, plain
        assert "forced stop" in plain.out and " --force" in plain.out, plain
        assert all(pid_alive(pid) for pid in agents)  # a plain interrupt stops nothing

        forced = await cli("interrupt", child, "--force", *server_args(backend))
        assert forced.code == 0, forced
        assert "force-stopped" in forced.out and "provider" in forced.out, forced
        await wait_until(lambda: not any(pid_alive(pid) for pid in agents),
                         timeout=15, what="the runaway's processes end")
        cleared = await session.wait_until(
            lambda: rule_on(sup.view(now()), RULE) is None or None, 10)
        assert cleared, "the finding did not clear"
