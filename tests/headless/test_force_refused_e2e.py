"""A forced stop the server refuses is reported as refused, in the server's words, and as
nothing else: not as a detach. The reference backend refuses `provider-session.detach` of a
session that is no longer attached to the thread; here another client's detach of that same
session lands first (between t3tui's look at the thread's sessions and its own detach), so the
refusal is the real backend's, over real sockets, with real agent processes."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from t3tui.backend.testing import RunningBackend
from t3tui.protocol.commands import ProviderSessionDetach
from tests.headless.cli import cli, server_args
from tests.headless.test_commands_e2e import active_run
from tests.runaway import sleeping_agents

pytestmark = pytest.mark.e2e
OTHER_CLIENT = "Detached by another client."


@contextlib.contextmanager
def another_client_detaches_first(backend: RunningBackend) -> Iterator[list[str]]:
    """Every detach t3tui sends meets a session another client detached a moment before (its
    command reaches the engine first), so the backend refuses t3tui's. Yields the sessions the
    other client detached."""
    engine = backend.engine
    dispatch = engine.dispatch
    beaten: list[str] = []

    async def first_the_other_client(command: Any) -> int:
        wire = command.to_wire() if hasattr(command, "to_wire") else dict(command)
        if wire.get("type") == "provider-session.detach" and wire.get("reason") != OTHER_CLIENT:
            session = wire["providerSessionId"]
            beaten.append(session)
            await dispatch(ProviderSessionDetach(
                command_id=f"other-{wire['commandId']}", thread_id=wire["threadId"],
                provider_session_id=session, reason=OTHER_CLIENT))
        return await dispatch(command)

    engine.dispatch = first_the_other_client  # type: ignore[method-assign]
    try:
        yield beaten
    finally:
        engine.dispatch = dispatch  # type: ignore[method-assign]


async def test_a_refused_forced_stop_says_refused_and_nothing_else() -> None:
    sleep = 600 + 47.25  # a sleep length no other test uses: its processes are found by it
    thread = "thread-stop-top"
    async with sleeping_agents(sleep, "stop-never-lands-top-level",
                               what="the thread's command") as (backend, _):
        assert active_run(backend, thread)
        with another_client_detaches_first(backend) as beaten:
            forced = await cli("interrupt", thread, "--force", "--timeout", "5",
                               *server_args(backend))
        assert len(beaten) == 1, beaten
        assert forced.code == 1, forced
        refusal = (f"server refused: Provider session {beaten[0]} is not attached to "
                   f"thread {thread}.")
        assert forced.out.strip() == refusal, forced.out
        assert "detached" not in forced.out, forced.out
