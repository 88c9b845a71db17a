"""A child's result is handed to its parent once: the second forward of the same result is
refused, saying when the parent's messages got it; asked again on purpose, it is sent. One
action (`actions.forward`), so the app's key, the CLI and the policies all keep to it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from t3tui import actions
from t3tui.actions import no_report
from t3tui.backend.testing import running_backend
from t3tui.model.forwarding import forward_text
from t3tui.model.labels import clock
from tests.actions.conftest import port_on
from tests.headless.cli import cli, server_args

pytestmark = pytest.mark.e2e


def now() -> datetime:
    return datetime.now(UTC)


def forwards_of(backend, text: str) -> list:
    return [m for m in backend.engine.projection("thread-waves").messages
            if m.role == "user" and m.text == text]


async def test_the_same_result_is_forwarded_once_unless_asked_again() -> None:
    async with running_backend(scenario="pending-delivery",
                               scenario_params={"step": 2}) as backend, \
            port_on(backend) as port:

        def three():
            view = port.supervisor.view(now())
            row = next((r for r in view.rows if r.task and r.title == "Wave three"), None)
            return row if row is not None and row.task.delivery == "pending" else None

        child = await port.wait_until(three, 20)
        assert child is not None
        first = await actions.forward(port, child, report=no_report, clock=now, timeout=15)
        assert first.kind == "ok", first
        [sent] = forwards_of(backend, forward_text(child))

        child = three()  # still pending: T3 never delivered it, only t3tui's message told it
        assert child is not None
        said: list[tuple[str, str]] = []
        second = await actions.forward(port, child, report=lambda *p: said.append(p),
                                       clock=now, timeout=15)
        assert second.kind == "unavailable", second
        when = clock(sent.created_at)
        assert second.text == (f"Wave three's result was already forwarded to its parent "
                               f"at {when} UTC"), second.text
        assert said == [("failed", second.text)]
        assert len(forwards_of(backend, forward_text(child))) == 1
        assert actions.unavailable("forward", child, connected=True, parent_forwards=(
            port.supervisor.forwards("thread-waves"))) == second.text  # the app's key dims

        again = await actions.forward(port, child, report=no_report, clock=now, timeout=15,
                                      again=True)
        assert again.kind == "ok", again
        assert len(forwards_of(backend, forward_text(child))) == 2


async def test_forward_twice_from_the_cli_refuses_the_second_and_again_sends_it() -> None:
    async with running_backend(scenario="pending-delivery",
                               scenario_params={"step": 2}) as backend:
        args = server_args(backend)
        sent = await cli("forward", "wave-3", "--yes", *args)
        assert sent.code == 0, sent
        text = sent.out.split(":\n", 1)[1].rsplit("\nforwarded to", 1)[0]
        [message] = forwards_of(backend, text)

        twice = await cli("forward", "wave-3", "--yes", *args)
        assert twice.code == 1, twice
        assert twice.err.strip().splitlines() == [
            f"t3tui: Wave three's result was already forwarded to its parent at "
            f"{clock(message.created_at)} UTC; use --again to send it again"], twice.err
        assert "Result of the delegated task" not in twice.out  # refused before the text
        assert len(forwards_of(backend, text)) == 1

        again = await cli("forward", "wave-3", "--yes", "--again", *args)
        assert again.code == 0, again
        assert len(forwards_of(backend, text)) == 2
