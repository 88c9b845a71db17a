"""The backend's plain HTTP routes, served through websockets' `process_request` hook.

websockets parses any request method as long as it has no body, which is all these routes
need. Returning None from `process_request` lets the `/ws` upgrade proceed; every other answer
is a complete JSON response (protocol §2, §12).
"""

from __future__ import annotations

import email.utils
import http
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


class HttpRoutes:
    """Answers the HTTP routes and gates the `/ws` upgrade (426 before 401, §2.6)."""

    def __init__(self, auth: Authenticator, descriptor: EnvironmentDescriptor) -> None:
        self._auth = auth
        self._descriptor = descriptor.to_wire()

    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """websockets hook: a full response for HTTP routes, None to accept an upgrade."""
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
