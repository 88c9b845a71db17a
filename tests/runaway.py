"""The reference backend's sleeping agents, started and always ended: the `runaway-provider`
scenario (T3 #5587: a run ended `interrupted`, its provider turn runs on) and its kin. Each test
gives a sleep length no other test uses, so its agent processes are found by their command
line, and killed at the end whatever failed."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass

from t3tui.backend.testing import RunningBackend, pid_alive, running_backend, wait_until
from t3tui.client.session import Session
from t3tui.model import DetectorConfig, Finding, Supervisor
from tests.backend.transport.test_commands import agent_pids_running
from tests.headless.test_second_wave_e2e import finding, watching

RULE = "provider-active-after-interrupt"
PARENT = "thread-runaway"
PARENT_TITLE = "Stop my child (its provider runs on)"
CHILD = "Interrupted, still burning CPU"


@contextlib.asynccontextmanager
async def sleeping_agents(
        sleep: float, scenario: str = "runaway-provider", *,
        what: str = "the runaway child's command",
        also: Iterable[float] = ()) -> AsyncIterator[tuple[RunningBackend, set[int]]]:
    """The backend running `scenario` with `sleep`, once its agents run `sleep {sleep}`; yields
    the backend and those processes. At the end they are killed, with those running any of the
    `also` sleep lengths the test started itself."""
    async with running_backend(scenario=scenario, scenario_params={"sleep": sleep}) as backend:
        agents: set[int] = set()
        try:
            agents = await wait_until(lambda: agent_pids_running(f"sleep {sleep:g}"),
                                      timeout=20, what=what)
            yield backend, agents
        finally:
            strays = set().union(*(agent_pids_running(f"sleep {s:g}") for s in also))
            for pid in agents | strays:  # never leave a sleeper behind, whatever failed
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)


@dataclass(frozen=True)
class Runaway:
    backend: RunningBackend
    agents: set[int]
    session: Session
    sup: Supervisor
    found: Finding


@contextlib.asynccontextmanager
async def watched_runaway(sleep: float, *, also: Iterable[float] = ()) -> AsyncIterator[Runaway]:
    """The `runaway-provider` scenario watched by a client with the default dwells, once its
    runaway is flagged (a one-shot command sees the finding only once its dwell held)."""
    async with sleeping_agents(sleep, also=also) as (backend, agents), \
            watching(backend, DetectorConfig()) as (session, sup):
        found = await finding(session, sup, RULE, 60)
        assert found is not None, "the runaway was never flagged"
        yield Runaway(backend, agents, session, sup, found)
