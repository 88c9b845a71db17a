"""Where the server is and how to prove who we are, with the token kept out of every log."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

URL_ENV = ("T3TUI_URL", "T3CODE_URL")
TOKEN_ENV = ("T3TUI_TOKEN", "T3CODE_TOKEN")


class Secret:
    """A string that never shows itself in `repr`, `str` or f-strings; `reveal()` to use it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('****')"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self) -> tuple[object, ...]:
        # Pickling would copy the token into places we do not control.
        raise TypeError("Secret cannot be pickled")


class TargetError(Exception):
    """The server URL or token is missing or unusable (a usage error, not a network one)."""


@dataclass(frozen=True)
class Target:
    """A T3 server base URL (http or https) and its bearer token."""

    base_url: str
    token: Secret

    @property
    def ws_url(self) -> str:
        scheme = "wss" if self.base_url.startswith("https") else "ws"
        return scheme + self.base_url[self.base_url.index(":") :] + "/ws"


def normalize_url(url: str) -> str:
    """`host:port`, `http://host:port/` or `ws://host:port/ws` -> `http://host:port`."""
    text = url.strip()
    if "://" not in text:
        text = "http://" + text
    refused = TargetError(f"not a server URL: {url!r} (expected http://HOST:PORT)")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number or too large
    except ValueError:
        raise refused from None
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    if scheme not in ("http", "https") or not parts.netloc:
        raise refused
    path = parts.path.rstrip("/")
    if path.endswith("/ws"):
        path = path[: -len("/ws")]
    return f"{scheme}://{parts.netloc}{path}"


def _first(values: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    for name in names:
        if values.get(name):
            return values[name]
    return None


def resolve_target(
    url: str | None, token: str | None, env: Mapping[str, str] | None = None
) -> Target:
    """Flags win over `T3TUI_*`, which win over `T3CODE_*`; raises `TargetError` if either is missing."""
    values = os.environ if env is None else env
    raw_url = url or _first(values, URL_ENV)
    raw_token = (token or _first(values, TOKEN_ENV) or "").strip()
    missing = []
    if not raw_url:
        missing.append("a server URL (--url, T3TUI_URL or T3CODE_URL)")
    if not raw_token:
        missing.append("a token (--token, T3TUI_TOKEN or T3CODE_TOKEN)")
    if missing:
        raise TargetError("no server given: need " + " and ".join(missing))
    assert raw_url is not None
    if not raw_token.isascii() or not raw_token.isprintable():
        # An HTTP header cannot carry it; say so now rather than retry a request that cannot
        # be sent. The token itself is never quoted.
        raise TargetError("the token has characters an HTTP header cannot carry")
    return Target(base_url=normalize_url(raw_url), token=Secret(raw_token))
