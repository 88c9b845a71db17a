"""Environment descriptor, websocket ticket, protocol constants, HTTP error bodies (§2)."""

from typing import Any, Literal

from pydantic import Field

from .base import Timestamp, WireModel

PROTOCOL_VERSION = 2
PROTOCOL_QUERY_PARAM = "orchestrationProtocol"
PROTOCOL_HEADER = "x-t3-orchestration-protocol"

OS = Literal["darwin", "linux", "windows", "unknown"]
Arch = Literal["arm64", "x64", "other"]


class Platform(WireModel):
    """Where the server runs."""

    os: OS | str = "unknown"
    arch: Arch | str = "other"
    machine: str | None = None

    wire_optional = frozenset({"machine"})


class EnvironmentCapabilities(WireModel):
    """Optional server capabilities; every key may be absent."""

    connection_probe: bool | None = None
    environment_themes: bool | None = None
    server_self_update: str | None = None
    server_self_update_progress: bool | None = None
    environment_icon: bool | None = None

    wire_optional = frozenset(
        {
            "connection_probe",
            "environment_themes",
            "server_self_update",
            "server_self_update_progress",
            "environment_icon",
        }
    )


class EnvironmentDescriptor(WireModel):
    """`GET /.well-known/t3/environment`."""

    environment_id: str
    label: str = ""
    platform: Platform = Field(default_factory=Platform)
    server_version: str = ""
    orchestration_protocol_version: int | None = None
    capabilities: EnvironmentCapabilities = Field(default_factory=EnvironmentCapabilities)

    wire_optional = frozenset({"orchestration_protocol_version"})

    @property
    def protocol_version(self) -> int:
        """The server's protocol; an absent field means protocol 1."""
        return 1 if self.orchestration_protocol_version is None else self.orchestration_protocol_version


class ServerConfig(WireModel):
    """`server.getConfig` result; only `environment` is read, the rest stays opaque."""

    environment: EnvironmentDescriptor | None = None

    wire_optional = frozenset({"environment"})


class WebsocketTicket(WireModel):
    """`POST /api/auth/websocket-ticket`: short-lived, single-use."""

    ticket: str
    expires_at: Timestamp | None = None

    def __repr_args__(self) -> Any:
        # The ticket is a credential: keep it out of logs, tracebacks and rich reprs.
        yield "ticket", "<redacted>"
        yield "expires_at", self.expires_at


class OAuthTokenResponse(WireModel):
    """`POST /oauth/token` response."""

    access_token: str = Field(alias="access_token")
    issued_token_type: str | None = Field(None, alias="issued_token_type")
    token_type: str = Field("Bearer", alias="token_type")
    expires_in: int | None = Field(None, alias="expires_in")
    scope: str | None = None

    wire_optional = frozenset({"issued_token_type", "expires_in", "scope"})

    def __repr_args__(self) -> Any:
        yield "access_token", "<redacted>"
        yield "token_type", self.token_type
        yield "expires_in", self.expires_in


class AuthInvalidBody(WireModel):
    """HTTP 401 body: bad, expired or used ticket or token."""

    tag_: Literal["EnvironmentAuthInvalidError"] = Field(
        "EnvironmentAuthInvalidError", alias="_tag"
    )
    code: str = "auth_invalid"
    reason: str | None = None
    trace_id: str | None = None


EnvironmentAuthInvalidError = AuthInvalidBody


class ProtocolIncompatibleBody(WireModel):
    """HTTP 426 body: the client's `orchestrationProtocol` does not match."""

    code: str = "orchestration_protocol_incompatible"
    message: str = ""
    orchestration_protocol_version: int | None = None


class InsufficientScopeBody(WireModel):
    """HTTP 403 body (shape varies by server build)."""

    code: str = "insufficient_scope"
    extra_info: Any = None

    wire_optional = frozenset({"extra_info"})
