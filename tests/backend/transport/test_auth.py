"""Transport auth over real sockets: bearer token, single-use tickets, the 426-then-401 gate."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from t3tui.backend.auth import Authenticator, TicketRejected, redact
from t3tui.backend.testing import running_backend
from tests.backend.transport.rawclient import RawRpc, get_ticket, ws_url


async def upgrade_status(url: str) -> tuple[int, dict]:
    """Try to open a websocket; the HTTP status and JSON body of the refusal."""
    try:
        async with connect(url):
            return 101, {}
    except InvalidStatus as refused:
        return refused.response.status_code, json.loads(refused.response.body)


async def test_environment_descriptor_needs_no_auth(backend):
    async with httpx.AsyncClient() as http:
        response = await http.get(f"{backend.url}/.well-known/t3/environment")
    body = response.json()
    assert response.status_code == 200
    assert body["orchestrationProtocolVersion"] == 2
    assert body["environmentId"].startswith("env-")
    assert body["platform"]["os"] in ("linux", "darwin", "windows", "unknown")


@pytest.mark.parametrize("header", [None, "Bearer wrong-token", "Basic abc", "Bearer"])
async def test_ticket_route_refuses_a_bad_token_with_the_401_body(backend, header):
    headers = {"Authorization": header} if header is not None else {}
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{backend.url}/api/auth/websocket-ticket", headers=headers)
    body = response.json()
    assert response.status_code == 401
    assert body["_tag"] == "EnvironmentAuthInvalidError"
    assert body["code"] == "auth_invalid"
    assert body["reason"] and body["traceId"]
    assert backend.token not in response.text


async def test_ticket_and_session_with_the_right_token(backend):
    headers = {"Authorization": f"Bearer {backend.token}"}
    async with httpx.AsyncClient() as http:
        ticket = (
            await http.post(f"{backend.url}/api/auth/websocket-ticket", headers=headers)
        ).json()
        session = await http.get(f"{backend.url}/api/auth/session", headers=headers)
        anonymous = await http.get(f"{backend.url}/api/auth/session")
    assert ticket["ticket"].startswith("wst_")
    expires = datetime.fromisoformat(ticket["expiresAt"])
    assert timedelta(minutes=4) < expires - datetime.now(UTC) <= timedelta(minutes=5)
    assert session.status_code == 200
    assert session.json()["authenticated"] is True
    assert "orchestration:operate" in session.json()["scopes"]
    assert anonymous.status_code == 401


async def test_unknown_routes_and_wrong_methods_are_json_errors(backend):
    async with httpx.AsyncClient() as http:
        missing = await http.get(f"{backend.url}/nope")
        wrong = await http.get(f"{backend.url}/api/auth/websocket-ticket")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"


async def test_a_ticket_opens_one_socket_only(backend):
    ticket = await get_ticket(backend.url, backend.token)
    async with connect(ws_url(backend.url, ticket)) as ws:
        await ws.send(json.dumps({"_tag": "Ping"}))
        assert json.loads(await ws.recv()) == {"_tag": "Pong"}
    status, body = await upgrade_status(ws_url(backend.url, ticket))
    assert status == 401
    assert body["code"] == "auth_invalid" and "already used" in body["reason"]


@pytest.mark.parametrize("protocol", [None, "1", "3", "two"])
async def test_missing_or_wrong_protocol_gets_426_and_keeps_the_ticket(backend, protocol):
    ticket = await get_ticket(backend.url, backend.token)
    status, body = await upgrade_status(ws_url(backend.url, ticket, protocol=protocol))
    assert status == 426
    assert body == {
        "code": "orchestration_protocol_incompatible",
        "message": "Update this client to one that supports orchestration protocol 2.",
        "orchestrationProtocolVersion": 2,
    }
    # The 426 did not spend the ticket: it still opens a socket.
    async with connect(ws_url(backend.url, ticket)) as ws:
        await ws.send(json.dumps({"_tag": "Ping"}))
        assert json.loads(await ws.recv()) == {"_tag": "Pong"}


async def test_426_is_checked_before_the_ticket(backend):
    status, _ = await upgrade_status(ws_url(backend.url, "wst_bogus", protocol=None))
    assert status == 426
    status, body = await upgrade_status(ws_url(backend.url, "wst_bogus"))
    assert status == 401 and "not valid" in body["reason"]
    status, body = await upgrade_status(ws_url(backend.url, None))
    assert status == 401 and "required" in body["reason"]


async def test_a_plain_get_on_ws_does_not_spend_the_ticket(backend):
    ticket = await get_ticket(backend.url, backend.token)
    async with httpx.AsyncClient() as http:
        response = await http.get(ws_url(backend.url, ticket).replace("ws://", "http://", 1))
    assert response.status_code == 400
    async with RawRpc(await connect(ws_url(backend.url, ticket))) as client:
        assert (await client.ok("server.probe", {})) == {}


class FakeClock:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 10, 4, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


async def test_an_expired_ticket_is_refused():
    clock = FakeClock()
    async with running_backend(clock=clock) as backend:
        ticket = await get_ticket(backend.url, backend.token)
        clock.now += timedelta(minutes=5, seconds=1)
        status, body = await upgrade_status(ws_url(backend.url, ticket))
    assert status == 401 and "expired" in body["reason"]


def test_authenticator_rules_without_sockets():
    clock = FakeClock()
    auth = Authenticator("secret-token", clock=clock)
    assert auth.check_bearer("Bearer secret-token")
    assert auth.check_bearer("bearer   secret-token  ")
    assert not auth.check_bearer("Bearer secret-token2")
    assert not auth.check_bearer(None)
    first, second = auth.issue_ticket(), auth.issue_ticket()
    assert first.ticket != second.ticket
    assert first.expires_at == clock.now + timedelta(minutes=5)
    auth.redeem(first.ticket)
    with pytest.raises(TicketRejected, match="already used"):
        auth.redeem(first.ticket)
    clock.now += timedelta(minutes=5)
    with pytest.raises(TicketRejected, match="expired"):
        auth.redeem(second.ticket)
    assert "secret-token" not in auth.token_fingerprint
    with pytest.raises(ValueError):
        Authenticator("")


def test_redact_scrubs_tickets_and_bearer_tokens():
    line = "< GET /ws?wsTicket=wst_abc-123&orchestrationProtocol=2 HTTP/1.1"
    assert "wst_abc-123" not in redact(line)
    assert "orchestrationProtocol=2" in redact(line)
    assert "s3cr3t" not in redact("< Authorization: Bearer s3cr3t")


def test_generated_tokens_never_start_with_a_dash() -> None:
    """A user pastes the token after `--token`; argparse takes a leading `-` for an option."""
    from t3tui.backend.auth import generate_token

    tokens = [generate_token() for _ in range(3000)]  # 1 in 64 would start with '-' unfixed
    assert not [t for t in tokens if t.startswith("-")]
    assert len(set(tokens)) == len(tokens) and all(len(t) >= 40 for t in tokens)
