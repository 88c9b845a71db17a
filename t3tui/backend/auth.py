"""Bearer-token and websocket-ticket authentication for the reference backend (protocol §2.3-2.6).

One static bearer token guards the HTTP auth routes; it buys short-lived, single-use tickets
that open `/ws`. Secrets never reach a log: use `fingerprint()` when something must be named.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

TICKET_TTL = timedelta(minutes=5)
TICKET_PREFIX = "wst_"
# Every scope a supervisor can use; the static token is an administrative bot token.
TOKEN_SCOPES = ("orchestration:read", "orchestration:operate")

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The wall clock, UTC-aware (tickets carry an absolute `expiresAt`)."""
    return datetime.now(UTC)


def generate_token() -> str:
    """A fresh random bearer token for a server started without `--token`.

    Never starts with `-`: a user pastes it after `--token`, where argparse would take a
    leading dash for an option and fail with "expected one argument".
    """
    token = secrets.token_urlsafe(32)
    return token if not token.startswith("-") else "t" + token[1:]


def fingerprint(secret: str) -> str:
    """A short, non-reversible name for a secret, safe to log."""
    return "sha256:" + hashlib.sha256(secret.encode()).hexdigest()[:10]


def bearer_from_header(value: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    if not value:
        return None
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


@dataclass(frozen=True)
class IssuedTicket:
    """A ticket as handed to the client."""

    ticket: str
    expires_at: datetime


class TicketRejected(Exception):
    """A ticket that cannot open a socket; `reason` is safe to show (it never holds the ticket)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Authenticator:
    """Checks the bearer token and issues and redeems websocket tickets."""

    def __init__(self, token: str, *, clock: Clock = utc_now, ticket_ttl: timedelta = TICKET_TTL):
        if not token:
            raise ValueError("the bearer token must not be empty")
        self._token = token.encode()
        self._clock = clock
        self._ttl = ticket_ttl
        # Tickets are stored by digest, so that memory never holds a usable ticket either.
        # Spent and expired tickets stay a while, so that a late use says why it failed.
        self._tickets: dict[str, _TicketState] = {}

    @property
    def token_fingerprint(self) -> str:
        return fingerprint(self._token.decode())

    def check_bearer(self, authorization: str | None) -> bool:
        """Whether an `Authorization` header carries the configured token."""
        token = bearer_from_header(authorization)
        return token is not None and hmac.compare_digest(token.encode(), self._token)

    def issue_ticket(self) -> IssuedTicket:
        """A new single-use ticket that expires after the TTL."""
        self._forget_expired()
        ticket = TICKET_PREFIX + secrets.token_urlsafe(24)
        expires_at = self._clock() + self._ttl
        self._tickets[_digest(ticket)] = _TicketState(expires_at)
        return IssuedTicket(ticket=ticket, expires_at=expires_at)

    def redeem(self, ticket: str | None) -> None:
        """Spend a ticket, or raise `TicketRejected` saying why it cannot be used."""
        if not ticket:
            raise TicketRejected("A websocket ticket is required (query parameter wsTicket).")
        state = self._tickets.get(_digest(ticket))
        if state is None:
            raise TicketRejected("The websocket ticket is not valid.")
        if state.spent:
            raise TicketRejected("The websocket ticket was already used.")
        if self._clock() >= state.expires_at:
            raise TicketRejected("The websocket ticket has expired.")
        state.spent = True

    def _forget_expired(self) -> None:
        horizon = self._clock() - self._ttl
        for key in [k for k, st in self._tickets.items() if st.expires_at < horizon]:
            del self._tickets[key]


@dataclass
class _TicketState:
    expires_at: datetime
    spent: bool = False


def _digest(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()


_SECRET_PATTERNS = (
    re.compile(r"(wsTicket=)[^&\s\"']+"),
    re.compile(r"(?i)(authorization:\s*bearer\s+)\S+"),
    re.compile(r"(wst_)[A-Za-z0-9_\-]+"),
)


def redact(text: str) -> str:
    """`text` with ticket and bearer values blanked out."""
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(r"\1<redacted>", text)
    return text


_KNOWN_SECRETS: set[str] = set()


def register_secret(value: str) -> None:
    """Blank out `value` (this server's token) wherever it would appear in a log line, even
    where no pattern finds it (a client that put it in a query string or a payload)."""
    if len(value) >= 8:
        _KNOWN_SECRETS.add(value)


def scrub(text: str) -> str:
    """`redact`, and every registered secret replaced by its fingerprint."""
    text = redact(text)
    for secret in _KNOWN_SECRETS:
        if secret in text:
            text = text.replace(secret, f"<redacted {fingerprint(secret)}>")
    return text


class RedactingFilter(logging.Filter):
    """Scrubs tickets and bearer tokens from records, e.g. websockets' debug request lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
