"""The handshake's HTTP/1.1 to a server reached directly: h11 over asyncio streams, as an httpx
transport.

Why not httpx's own transport: it is httpcore's connection pool, and httpcore imports anyio
(its locks are anyio's) when the first client is made, and anyio's asyncio backend at the
first request: ~30 ms of every fresh process's way to its first tree, for two requests of a
few hundred bytes. h11 is the sans-I/O HTTP/1.1 that httpcore itself speaks. httpx stays the
API (requests, responses, timeouts, its exceptions) and still decides which transport a URL
takes: one the environment sends through a proxy goes to httpx's own proxy transport (which
brings httpcore then, as before).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from typing import Any

import h11
import httpx

# A descriptor or a ticket is a few hundred bytes, an error body a line. A megabyte is three
# orders of magnitude above any honest answer (an HTML 404 page of a server that is no T3
# server still fits), and is all a hostile or confused server can make us hold.
MAX_BODY_BYTES = 1024 * 1024
READ_CHUNK = 64 * 1024
# Heads (h11 holds each to 16 KiB) beside the body: an endless run of 1xx answers ends too.
HEADS_BYTES = 64 * 1024


class DirectTransport(httpx.AsyncBaseTransport):
    """One connection per request, closed after its answer: the handshake makes two requests,
    once per connect, so a pool would keep nothing worth keeping. `tls` is the verified
    context for https URLs (None: this transport speaks plain http only)."""

    def __init__(self, tls: ssl.SSLContext | None, *, max_body: int = MAX_BODY_BYTES) -> None:
        self._tls = tls
        self._max_body = max_body

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeouts: dict[str, Any] = request.extensions.get("timeout", {})
        reader, writer = await self._connect(request, timeouts.get("connect"))
        try:
            conn = h11.Connection(h11.CLIENT)  # its 16 KiB bound on the head holds
            await _send(conn, request, writer, timeouts.get("write"))
            head, body = await self._receive(conn, request, reader, timeouts.get("read"))
        except h11.RemoteProtocolError as exc:
            raise httpx.RemoteProtocolError(str(exc), request=request) from exc
        except h11.LocalProtocolError:
            # h11's own words quote the header it refused, which may be the bearer token
            raise httpx.LocalProtocolError("the request has a header HTTP/1.1 cannot carry",
                                           request=request) from None
        finally:
            writer.close()
        return httpx.Response(
            head.status_code, headers=head.headers.raw_items(), stream=httpx.ByteStream(body),
            extensions={"http_version": b"HTTP/" + head.http_version,
                        "reason_phrase": head.reason},
        )

    async def _connect(
        self, request: httpx.Request, limit: float | None
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        url = request.url
        if url.scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"unsupported URL scheme {url.scheme!r}",
                                            request=request)
        tls = None
        if url.scheme == "https":
            if self._tls is None:
                raise httpx.UnsupportedProtocol("https without a TLS context", request=request)
            tls = self._tls
        port = url.port or (443 if tls else 80)
        try:
            async with asyncio.timeout(limit):
                sock = await _tcp(url.host, port)
                try:
                    return await asyncio.open_connection(
                        sock=sock, ssl=tls, server_hostname=url.host if tls else None)
                except BaseException:
                    sock.close()
                    raise
        except TimeoutError as exc:  # ours, or the kernel's ETIMEDOUT: either is a timeout
            raise httpx.ConnectTimeout(f"no connection within {limit}s", request=request) \
                from exc
        except OSError as exc:  # refused, unreachable, unresolvable, TLS refused or unverified
            raise httpx.ConnectError(str(exc) or type(exc).__name__, request=request) from exc

    async def _receive(
        self, conn: h11.Connection, request: httpx.Request, reader: asyncio.StreamReader,
        limit: float | None,
    ) -> tuple[h11.Response, bytes]:
        head: h11.Response | None = None
        chunks: list[bytes] = []
        size = received = 0
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await _read(reader, request, limit)
                if not data and head is None:  # h11 would name its own states instead
                    raise httpx.RemoteProtocolError(
                        "the server closed the connection without an answer", request=request)
                received += len(data)
                if received > self._max_body + HEADS_BYTES:
                    raise self._too_large(request)
                conn.receive_data(data)
            elif isinstance(event, h11.Response):
                head = event
                declared = _content_length(event)
                if declared is not None and declared > self._max_body:
                    raise self._too_large(request)
            elif isinstance(event, h11.Data):
                size += len(event.data)
                if size > self._max_body:
                    raise self._too_large(request)
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                assert head is not None  # h11 sends a Response before any EndOfMessage
                return head, b"".join(chunks)
            # else h11.InformationalResponse (1xx): the answer is still to come

    def _too_large(self, request: httpx.Request) -> httpx.RemoteProtocolError:
        return httpx.RemoteProtocolError(
            f"answer over {self._max_body // 1024} KiB (a descriptor or a ticket is a few "
            "hundred bytes)", request=request)


async def _tcp(host: str, port: int) -> socket.socket:
    """A connected non-blocking socket to the first of the host's addresses that accepts.
    Each address is tried in turn (as asyncio does), but every failure is kept: with several
    addresses (`localhost` is ::1 and 127.0.0.1) Python 3.11's asyncio folds them into one
    plain OSError, and a refusal must stay visible as one (`errors.is_refusal`)."""
    loop = asyncio.get_running_loop()
    try:
        ipaddress.ip_address(host)
    except ValueError:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    else:  # a literal address needs no resolver thread
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        infos = [(family, socket.SOCK_STREAM, 0, "", (host, port))]
    errors: list[OSError] = []
    for family, kind, proto, _, address in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.setblocking(False)
            await loop.sock_connect(sock, address)
        except OSError as exc:
            sock.close()
            errors.append(exc)
            continue
        except BaseException:
            sock.close()
            raise
        return sock
    if len(errors) == 1:
        raise errors[0]
    if not errors:
        raise OSError(f"no address for {host}")
    raise OSError(f"{errors[0]} (and {len(errors) - 1} more addresses failed)") \
        from ExceptionGroup(f"every address of {host} failed", errors)


async def _send(conn: h11.Connection, request: httpx.Request, writer: asyncio.StreamWriter,
                limit: float | None) -> None:
    body = await request.aread()
    data = conn.send(h11.Request(method=request.method, target=request.url.raw_path,
                                 headers=request.headers.raw)) or b""
    if body:
        data += conn.send(h11.Data(data=body)) or b""
    data += conn.send(h11.EndOfMessage()) or b""
    writer.write(data)
    try:
        async with asyncio.timeout(limit):
            await writer.drain()
    except TimeoutError as exc:
        raise httpx.WriteTimeout(f"request not written within {limit}s", request=request) \
            from exc
    except OSError as exc:
        raise httpx.WriteError(str(exc) or type(exc).__name__, request=request) from exc


async def _read(reader: asyncio.StreamReader, request: httpx.Request,
                limit: float | None) -> bytes:
    try:
        async with asyncio.timeout(limit):
            return await reader.read(READ_CHUNK)
    except TimeoutError as exc:
        raise httpx.ReadTimeout(f"no answer within {limit}s", request=request) from exc
    except OSError as exc:
        raise httpx.ReadError(str(exc) or type(exc).__name__, request=request) from exc


def _content_length(head: h11.Response) -> int | None:
    for name, value in head.headers:
        if name == b"content-length":
            return int(value)  # h11 has checked it is digits
    return None


class HandshakeClient(httpx.AsyncClient):
    """httpx's client with `DirectTransport` for the URLs it reaches directly.

    httpx builds the direct transport in `_init_transport` and one per proxy the environment
    names in `_init_proxy_transport`, then picks one per URL (NO_PROXY and all). Passing
    `transport=` instead would also turn the environment's proxies off, so the direct one is
    swapped here and the proxy ones stay httpx's own."""

    def _init_transport(self, verify: Any = True, **_: Any) -> DirectTransport:
        return DirectTransport(verify if isinstance(verify, ssl.SSLContext) else None)


def proxied(client: httpx.AsyncClient, url: str) -> bool:
    """Whether `client` sends `url` through a proxy (one the environment names): httpx's own
    choice, read from the client that made it."""
    return client._transport_for_url(httpx.URL(url)) is not client._transport
