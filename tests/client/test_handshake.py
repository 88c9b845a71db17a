"""Handshake paths the reference backend never takes: other protocol versions, 426, 401s.

A small real HTTP/websocket server (`tests/client/fake_server.py`) plays the T3 server.
"""

from __future__ import annotations

import asyncio
import ssl

import pytest

from t3tui.client.errors import AuthenticationNeeded, ConnectError, ProtocolMismatch
from t3tui.client.handshake import open_socket, tls_for
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.client.state import Failed
from t3tui.model import Supervisor
from tests.client.fake_server import TOKEN, FakeServer, fake


async def test_v2_server_upgrades_with_a_fresh_ticket_and_the_protocol_param() -> None:
    server = FakeServer()
    async with fake(server) as target:
        for _ in range(2):
            ws = await open_socket(target, open_timeout=5)
            await ws.close()
    assert server.tickets_issued == 2
    assert server.upgrades == [
        "/ws?wsTicket=wst_1&orchestrationProtocol=2",
        "/ws?wsTicket=wst_2&orchestrationProtocol=2",
    ]


@pytest.mark.parametrize(
    ("version", "expected"),
    [(None, "server speaks protocol 1, t3tui speaks 2"), (3, "server speaks protocol 3, t3tui speaks 2")],
)
async def test_other_protocol_versions_are_refused_before_any_ticket(
    version: int | None, expected: str
) -> None:
    server = FakeServer(version=version)
    async with fake(server) as target:
        with pytest.raises(ProtocolMismatch, match=expected):
            await open_socket(target, open_timeout=5)
    assert server.tickets_issued == 0


async def test_426_on_upgrade_stops_with_the_servers_version() -> None:
    server = FakeServer(upgrade_statuses=[426])
    async with fake(server) as target:
        with pytest.raises(ProtocolMismatch, match="server speaks protocol 3, t3tui speaks 2"):
            await open_socket(target, open_timeout=5)


async def test_one_401_gets_one_new_ticket() -> None:
    server = FakeServer(upgrade_statuses=[401])
    async with fake(server) as target:
        ws = await open_socket(target, open_timeout=5)
        await ws.close()
    assert server.tickets_issued == 2


async def test_two_401s_mean_authentication_is_needed() -> None:
    server = FakeServer(upgrade_statuses=[401, 401, 401])
    async with fake(server) as target:
        with pytest.raises(AuthenticationNeeded, match="authentication needed") as info:
            await open_socket(target, open_timeout=5)
    assert server.tickets_issued == 2
    assert TOKEN not in str(info.value)


async def test_a_refused_token_is_authentication_needed_without_the_token() -> None:
    server = FakeServer(ticket_status=401)
    async with fake(server) as target:
        with pytest.raises(AuthenticationNeeded) as info:
            await open_socket(target, open_timeout=5)
    assert "HTTP 401" in str(info.value) and TOKEN not in str(info.value)


async def test_nothing_listening_is_a_retryable_connect_error() -> None:
    async with fake(FakeServer()) as target:
        dead = target
    with pytest.raises(ConnectError, match="cannot reach"):
        await open_socket(dead, open_timeout=2)


async def test_an_unexpected_connect_error_ends_the_session_failed_with_its_reason() -> None:
    # A Target built in code skips normalize_url; httpx then raises InvalidURL, which is not
    # one of the errors the session retries. It must still end Failed, not die silently.
    session = Session(Target("http://127.0.0.1:abc", Secret("x")), Supervisor())
    runner = asyncio.create_task(session.run())
    try:
        state = await session.wait_synchronized(5)
        assert isinstance(state, Failed) and "port" in state.reason
    finally:
        await session.stop()
        await asyncio.gather(runner, return_exceptions=True)


async def test_a_plain_http_target_loads_no_ca_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading the CA bundle costs 20-60 ms of the event loop at every connect, and a
    plain-http server gets no TLS connection from it (redirects are not followed)."""
    loaded: list[object] = []
    real = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: object, **kwargs: object) -> None:
        loaded.append(args or kwargs)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    server = FakeServer()
    async with fake(server) as target:
        assert target.base_url.startswith("http://")
        ws = await open_socket(target, open_timeout=5)
        await ws.close()
    assert server.upgrades, "the socket was opened"
    assert loaded == []


def test_an_https_target_verifies_with_one_context_per_process() -> None:
    target = Target("https://t3.example:8443", Secret("tok"))
    context = tls_for(target)
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.get_ca_certs() or context.cert_store_stats()["x509_ca"] > 0
    assert tls_for(target) is context
