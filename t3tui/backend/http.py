"""The backend's plain HTTP routes, served through websockets' `process_request` hook.

websockets parses any request method as long as it has no body, which is all these routes
need. Returning None from `process_request` lets the `/ws` upgrade proceed; every other answer
is a complete JSON response (protocol §2, §12).
"""

from __future__ import annotations

import email.utils
import http
import ipaddress
import json
import platform
import secrets
import sys
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from t3tui import __version__ as T3TUI_VERSION
from t3tui.backend.auth import TOKEN_SCOPES, Authenticator, TicketRejected
from t3tui.protocol.environment import (
    PROTOCOL_QUERY_PARAM,
    PROTOCOL_VERSION,
    AuthInvalidBody,
    EnvironmentDescriptor,
    ProtocolIncompatibleBody,
    WebsocketTicket,
)

ENVIRONMENT_PATH = "/.well-known/t3/environment"
TICKET_PATH = "/api/auth/websocket-ticket"
SESSION_PATH = "/api/auth/session"
WS_PATH = "/ws"

_ROUTE_METHODS = {
    ENVIRONMENT_PATH: "GET",
    TICKET_PATH: "POST",
    SESSION_PATH: "GET",
    WS_PATH: "GET",
}


def build_descriptor(environment_id: str, label: str) -> EnvironmentDescriptor:
    """This server's `ExecutionEnvironmentDescriptor` (protocol §2.2)."""
    return EnvironmentDescriptor.from_wire(
        {
            "environmentId": environment_id,
            "label": label,
            "platform": {"os": _platform_os(), "arch": _platform_arch(), "machine": "server"},
            "serverVersion": f"t3tui-reference-{T3TUI_VERSION}",
            "orchestrationProtocolVersion": PROTOCOL_VERSION,
            "capabilities": {"connectionProbe": True},
        }
    )


LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost"})
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})


def _is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def normalize_origin(origin: str) -> str | None:
    """`scheme://host[:port]` in lower case without a default port or path; None when it is
    not an http(s) origin (e.g. `null`)."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    default = 443 if parts.scheme == "https" else 80
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")


class OriginPolicy:
    """Who may talk to this server from a browser, and under which host name.

    DNS rebinding points an attacker's name at 127.0.0.1, so a page of theirs reaches a
    loopback server with `Host: evil.example`; a page of any site can open a websocket to
    localhost with `Origin: http://evil.example`. Accepted: a Host that is a loopback name or
    address, the address the server is bound to, any IP address when it listens on every
    interface (rebinding needs a name), and the host names of configured origins; an Origin
    (sent only by browsers) that is the server's own (`http://<accepted host>:<its port>`) or
    a configured one. Anything else is refused with 403 before any route runs.
    """

    def __init__(self, bind_host: str, allowed_origins: tuple[str, ...] = ()) -> None:
        self.bind_host = bind_host.strip("[]").lower()
        self.origins = frozenset(o for o in map(normalize_origin, allowed_origins) if o)
        self.hosts = frozenset(urlsplit(o).hostname or "" for o in self.origins) - {""}

    def host_ok(self, host: str) -> bool:
        host = host.strip("[]").lower()
        if _is_loopback(host) or host == self.bind_host or host in self.hosts:
            return True
        return self.bind_host in WILDCARD_HOSTS and _is_ip(host)

    def origin_ok(self, origin: str, port: int) -> bool:
        normal = normalize_origin(origin)
        if normal is None:
            return False
        if normal in self.origins:
            return True
        parts = urlsplit(normal)
        # This server speaks plain HTTP: its own origin is http://<accepted host>:<its port>.
        return (parts.scheme == "http" and (parts.port or 80) == port
                and self.host_ok(parts.hostname or ""))

    def refusal(self, connection: ServerConnection, request: Request) -> Response | None:
        """A 403 for a request from a host name or origin that is not accepted, else None."""
        host_header = request.headers.get("Host", "")
        try:
            host = urlsplit(f"//{host_header}").hostname or ""
        except ValueError:
            host = ""
        if not host or not self.host_ok(host):
            return json_response(403, {
                "code": "forbidden_host",
                "message": "This server only answers to a loopback host name or its own "
                           "address (DNS rebinding protection).",
            })
        origin = request.headers.get("Origin")
        if origin is not None:
            port = int(connection.local_address[1]) if connection.local_address else 0
            if not self.origin_ok(origin, port):
                return json_response(403, {
                    "code": "forbidden_origin",
                    "message": "Requests from this origin are not allowed (serve "
                               "--allow-origin ORIGIN adds one).",
                })
        return None


class HttpRoutes:
    """Answers the HTTP routes and gates the `/ws` upgrade (426 before 401, §2.6)."""

    def __init__(self, auth: Authenticator, descriptor: EnvironmentDescriptor,
                 policy: OriginPolicy | None = None) -> None:
        self._auth = auth
        self._descriptor = descriptor.to_wire()
        self._policy = policy or OriginPolicy("127.0.0.1")

    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """websockets hook: a full response for HTTP routes, None to accept an upgrade."""
        refused = self._policy.refusal(connection, request)
        if refused is not None:
            return refused
        path = urlsplit(request.path).path
        expected = _ROUTE_METHODS.get(path)
        if expected is None:
            return json_response(404, {"code": "not_found", "message": f"No route for {path}."})
        if request.method != expected:
            response = json_response(
                405, {"code": "method_not_allowed", "message": f"Use {expected} {path}."}
            )
            response.headers["Allow"] = expected
            return response
        if path == ENVIRONMENT_PATH:
            return json_response(200, self._descriptor)
        if path == TICKET_PATH:
            return self._issue_ticket(request)
        if path == SESSION_PATH:
            return self._session(request)
        return self._gate_upgrade(request)

    def _issue_ticket(self, request: Request) -> Response:
        if not self._auth.check_bearer(request.headers.get("Authorization")):
            return auth_invalid("A valid bearer token is required.")
        issued = self._auth.issue_ticket()
        body = WebsocketTicket(ticket=issued.ticket, expires_at=issued.expires_at)
        return json_response(200, body.to_wire())

    def _session(self, request: Request) -> Response:
        if not self._auth.check_bearer(request.headers.get("Authorization")):
            return auth_invalid("A valid bearer token is required.")
        return json_response(
            200,
            {
                "authenticated": True,
                "auth": {"policy": "static-bearer-token"},
                "sessionMethod": "bearer-access-token",
                "scopes": list(TOKEN_SCOPES),
            },
        )

    def _gate_upgrade(self, request: Request) -> Response | None:
        query = parse_qs(urlsplit(request.path).query)
        if query.get(PROTOCOL_QUERY_PARAM, [None])[-1] != str(PROTOCOL_VERSION):
            body = ProtocolIncompatibleBody(
                code="orchestration_protocol_incompatible",
                message=(
                    f"Update this client to one that supports orchestration protocol "
                    f"{PROTOCOL_VERSION}."
                ),
                orchestration_protocol_version=PROTOCOL_VERSION,
            )
            return json_response(426, body.to_wire())
        # Checked before the ticket, so that a plain GET cannot spend one.
        if "websocket" not in request.headers.get("Upgrade", "").lower():
            return json_response(
                400, {"code": "upgrade_required", "message": "Expected a websocket upgrade."}
            )
        try:
            self._auth.redeem(query.get("wsTicket", [None])[-1])
        except TicketRejected as rejected:
            return auth_invalid(rejected.reason)
        return None


def auth_invalid(reason: str) -> Response:
    """The 401 body of §2.6."""
    body = AuthInvalidBody(code="auth_invalid", reason=reason, trace_id=secrets.token_hex(8))
    return json_response(401, body.to_wire())


def json_response(status: int, body: Any) -> Response:
    """A complete JSON response that closes the connection."""
    phrase = http.HTTPStatus(status).phrase
    payload = json.dumps(body, separators=(",", ":")).encode()
    headers = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Connection", "close"),
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(payload))),
            ("Cache-Control", "no-store"),
        ]
    )
    return Response(status, phrase, headers, payload)


def _platform_os() -> str:
    if sys.platform.startswith("linux"):
        return "linux"
    if sys.platform == "darwin":
        return "darwin"
    if sys.platform.startswith("win"):
        return "windows"
    return "unknown"


def _platform_arch() -> str:
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        return "x64"
    if machine in ("arm64", "aarch64"):
        return "arm64"
    return "other"
