"""Where the server is and how to prove who we are, with the token kept out of every log."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

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


def split_userinfo(url: str) -> tuple[str, str | None]:
    """`url` without `user:password@` (never echoed: it may hold the token), and the
    password (or a lone user name) it carried, if any."""
    scheme, sep, rest = url.strip().rpartition("://")
    authority, slash, path = rest.partition("/")
    userinfo, at, host = authority.rpartition("@")
    if not at:
        return url.strip(), None
    user, colon, password = userinfo.partition(":")
    secret = password if colon else user
    return f"{scheme}{sep}{host}{slash}{path}", unquote(secret) or None


def normalize_url(url: str) -> str:
    """`host:port`, `http://host:port/` or `ws://host:port/ws` -> `http://host:port`; any
    `user:password@` is dropped (see `resolve_target`)."""
    text, _ = split_userinfo(url)
    shown = text
    if "://" not in text:
        text = "http://" + text
    refused = TargetError(f"not a server URL: {shown!r} (expected http://HOST:PORT)")
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


def read_token_file(path: str) -> str:
    """The token in `path` (surrounding whitespace dropped); `TargetError` naming the file,
    never its content, when it cannot be read or is empty."""
    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read(64 * 1024).strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise TargetError(f"cannot read the token file {path}: {reason}") from None
    if not token:
        raise TargetError(f"the token file {path} is empty")
    return token


def resolve_target(
    url: str | None, token: str | None, env: Mapping[str, str] | None = None,
    token_file: str | None = None,
) -> Target:
    """Flags (`--token`, then `--token-file`) win over `T3TUI_*`, which win over `T3CODE_*`,
    which win over a password in the URL; raises `TargetError` if either is missing."""
    values = os.environ if env is None else env
    raw_url = url or _first(values, URL_ENV)
    in_url = split_userinfo(raw_url)[1] if raw_url else None
    if token is None and token_file:
        token = read_token_file(token_file)
    raw_token = (token or _first(values, TOKEN_ENV) or in_url or "").strip()
    missing = []
    if not raw_url:
        missing.append("a server URL (--url, T3TUI_URL or T3CODE_URL)")
    if not raw_token:
        missing.append("a token (--token-file, T3TUI_TOKEN, T3CODE_TOKEN or --token)")
    if missing:
        raise TargetError("no server given: need " + " and ".join(missing))
    assert raw_url is not None
    if not raw_token.isascii() or not raw_token.isprintable():
        # An HTTP header cannot carry it; say so now rather than retry a request that cannot
        # be sent. The token itself is never quoted.
        raise TargetError("the token has characters an HTTP header cannot carry")
    return Target(base_url=normalize_url(raw_url), token=Secret(raw_token))
