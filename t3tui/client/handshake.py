"""Before the socket opens: version check, bearer token -> single-use ticket, the upgrade."""

from __future__ import annotations

import json
import ssl
from collections.abc import Callable
from functools import cache
from urllib.parse import urlencode

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidHandshake, InvalidStatus

from t3tui.client.errors import (
    AuthenticationNeeded,
    ConnectError,
    FatalError,
    ProtocolMismatch,
    describe,
    is_refusal,
)
from t3tui.client.secret import Target
from t3tui.protocol import ProtocolError
from t3tui.protocol.environment import (
    PROTOCOL_QUERY_PARAM,
    PROTOCOL_VERSION,
    EnvironmentDescriptor,
    WebsocketTicket,
)

DESCRIPTOR_PATH = "/.well-known/t3/environment"
TICKET_PATH = "/api/auth/websocket-ticket"
# Snapshots of a busy server are large; the websockets default of 1 MiB is far too small.
MAX_FRAME_BYTES = 256 * 1024 * 1024
# Descriptor answers that say this URL is no T3 server whatever the moment; others (a
# proxy's 502 or 503 while the server restarts) are retried.
NOT_T3_STATUSES = frozenset({400, 404, 405, 410})


@cache
def _verified_tls() -> ssl.SSLContext:
    """The context every https request verifies with, made once per process: loading the
    CA bundle costs 20-60 ms of the event loop, which httpx pays for each new client."""
    return httpx.create_ssl_context()


def tls_for(target: Target) -> ssl.SSLContext | bool:
    """What the handshake's HTTP requests verify with: the CA bundle for an https target;
    nothing to load for a plain-http one, which makes no TLS connection (the requests go to
    its own URL, and redirects are not followed)."""
    return _verified_tls() if target.base_url.startswith("https") else False


def check_version(descriptor: EnvironmentDescriptor) -> None:
    """Raise `ProtocolMismatch` unless the server speaks our protocol (absent means V1)."""
    version = descriptor.orchestration_protocol_version
    if version == PROTOCOL_VERSION:
        return
    spoken = 1 if version is None else version
    hint = " (V1 servers are not supported yet)" if spoken == 1 else ""
    raise ProtocolMismatch(
        f"server speaks protocol {spoken}, t3tui speaks {PROTOCOL_VERSION}{hint}"
    )


def unreachable(target: Target, exc: BaseException, *, proxied: bool = False) -> ConnectError:
    if proxied:  # the failure is the proxy's as much as the server's: say which was asked
        via = (f"cannot reach {target.base_url} through the environment's proxy (HTTP_PROXY, "
               "HTTPS_PROXY or ALL_PROXY; NO_PROXY lists hosts reached directly)")
        if is_refusal(exc):
            return ConnectError(f"{via}: the proxy refused the connection", refused=True)
        return ConnectError(f"{via}: {describe(exc)}")
    if is_refusal(exc):
        return ConnectError(f"cannot reach {target.base_url}: connection refused (is the "
                            "server running, on that port?)", refused=True)
    return ConnectError(f"cannot reach {target.base_url}: {describe(exc)}")


def _unreachable_by(http: httpx.AsyncClient, url: str, target: Target,
                    exc: BaseException) -> ConnectError:
    from t3tui.client.direct_http import proxied  # the failure path only

    return unreachable(target, exc, proxied=proxied(http, url))


async def fetch_descriptor(http: httpx.AsyncClient, target: Target) -> EnvironmentDescriptor:
    url = target.base_url + DESCRIPTOR_PATH
    try:
        response = await http.get(url)
    except httpx.HTTPError as exc:
        raise _unreachable_by(http, url, target, exc) from None
    if response.status_code != 200:
        message = (f"{target.base_url} is not a T3 server: environment descriptor answered "
                   f"HTTP {response.status_code}")
        if response.status_code in NOT_T3_STATUSES:
            # an answer about the URL itself (a wrong path, say), not a passing state of the
            # server: retrying would only make the user wait out --connect-timeout for it
            raise FatalError(message + " (is the URL's path right?)")
        raise ConnectError(message)
    try:
        return EnvironmentDescriptor.from_wire(response.json())
    except (ProtocolError, ValueError) as exc:
        raise ConnectError(f"unreadable environment descriptor: {describe(exc)}") from None


async def fetch_ticket(http: httpx.AsyncClient, target: Target) -> str:
    """Trade the bearer token for a fresh single-use websocket ticket."""
    headers = {"Authorization": f"Bearer {target.token.reveal()}"}
    url = target.base_url + TICKET_PATH
    try:
        response = await http.post(url, headers=headers)
    except httpx.HTTPError as exc:
        raise _unreachable_by(http, url, target, exc) from None
    if response.status_code in (401, 403):
        raise AuthenticationNeeded(
            f"authentication needed: the server refused the token "
            f"(HTTP {response.status_code}{_reason(response.content)})"
        )
    if response.status_code != 200:
        raise ConnectError(f"websocket ticket request answered HTTP {response.status_code}")
    try:
        return WebsocketTicket.from_wire(response.json()).ticket
    except (ProtocolError, ValueError) as exc:
        raise ConnectError(f"unreadable websocket ticket: {describe(exc)}") from None


def _reason(body: bytes) -> str:
    """The server's own short reason from an error body, if it gave one."""
    try:
        data = json.loads(body)
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    text = data.get("reason") or data.get("message") or data.get("code")
    return f": {str(text)[:200]}" if text else ""


def _mismatch_from_426(body: bytes) -> ProtocolMismatch:
    try:
        spoken = json.loads(body).get("orchestrationProtocolVersion")
    except (ValueError, AttributeError):
        spoken = None
    if not isinstance(spoken, int):
        return ProtocolMismatch(
            f"server refused orchestration protocol {PROTOCOL_VERSION} (HTTP 426)"
        )
    return ProtocolMismatch(f"server speaks protocol {spoken}, t3tui speaks {PROTOCOL_VERSION}")


async def _upgrade(target: Target, ticket: str, open_timeout: float) -> ClientConnection:
    query = urlencode({"wsTicket": ticket, PROTOCOL_QUERY_PARAM: PROTOCOL_VERSION})
    return await connect(
        f"{target.ws_url}?{query}",
        open_timeout=open_timeout,
        # Liveness is the protocol's own Ping/Pong (t3-protocol §3.3), not websocket pings.
        ping_interval=None,
        max_size=MAX_FRAME_BYTES,
        compression=None,
    )


async def open_socket(
    target: Target,
    *,
    open_timeout: float = 10.0,
    on_descriptor: Callable[[EnvironmentDescriptor], None] | None = None,
) -> ClientConnection:
    """Descriptor, version check, fresh ticket, upgrade; one new ticket after a 401.
    `on_descriptor` sees the descriptor of a server that passed the version check.

    Raises `ProtocolMismatch` or `AuthenticationNeeded` (stop) or `ConnectError` (retry).
    """
    # Imported here, as httpx imports httpcore at its first client: h11's ~6 ms are paid by
    # the first connect (where the first-tree benchmark sees them), not by every command
    # that imports the client and never connects.
    from t3tui.client.direct_http import HandshakeClient

    async with HandshakeClient(timeout=open_timeout, verify=tls_for(target)) as http:
        descriptor = await fetch_descriptor(http, target)
        check_version(descriptor)
        if on_descriptor is not None:
            on_descriptor(descriptor)
        for attempt in (1, 2):
            ticket = await fetch_ticket(http, target)
            try:
                return await _upgrade(target, ticket, open_timeout)
            except InvalidStatus as exc:
                status = exc.response.status_code
                if status == 426:
                    raise _mismatch_from_426(exc.response.body or b"") from None
                if status == 401 and attempt == 1:
                    continue
                if status == 401:
                    raise AuthenticationNeeded(
                        "authentication needed: the server refused two fresh websocket "
                        f"tickets{_reason(exc.response.body or b'')}"
                    ) from None
                raise ConnectError(f"websocket upgrade answered HTTP {status}") from None
            except (InvalidHandshake, OSError, TimeoutError) as exc:
                raise ConnectError(f"websocket connect failed: {describe(exc)}") from None
    raise AssertionError("unreachable")  # pragma: no cover
