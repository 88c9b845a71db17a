"""The handshake's own HTTP/1.1 transport against servers that misbehave at the HTTP level:
bodies without end, malformed or missing answers, silence, TLS. Each is a real server on
127.0.0.1 that writes the bytes a test chooses."""

from __future__ import annotations

import asyncio
import socket
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from websockets.asyncio.server import serve

from t3tui.client import handshake
from t3tui.client.direct_http import MAX_BODY_BYTES, HandshakeClient
from t3tui.client.errors import ConnectError
from t3tui.client.handshake import open_socket
from t3tui.client.secret import Secret, Target
from tests.client.fake_server import TOKEN, FakeServer

Answer = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
DESCRIPTOR = (b'{"environmentId":"env-raw","label":"raw","platform":{"os":"linux","arch":"x64"},'
              b'"serverVersion":"0.0.1","capabilities":{},"orchestrationProtocolVersion":2}')


@asynccontextmanager
async def raw_server(answer: Answer) -> AsyncIterator[Target]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await answer(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client hung up: what some tests want
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield Target(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}", Secret(TOKEN))
    finally:
        server.close()


async def head_of(reader: asyncio.StreamReader) -> list[bytes]:
    return (await reader.readuntil(b"\r\n\r\n")).split(b"\r\n")


async def test_a_body_without_end_is_cut_at_the_cap_not_read() -> None:
    sent = 0

    async def endless(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal sent
        await head_of(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"10000\r\n" + b"x" * 0x10000 + b"\r\n"
        while True:
            writer.write(chunk)
            await writer.drain()
            sent += len(chunk)

    async with raw_server(endless) as target, asyncio.timeout(20):
        with pytest.raises(ConnectError, match="RemoteProtocolError: answer over 1024 KiB"):
            await open_socket(target, open_timeout=10)
    # what the server got out before the client hung up: the cap, plus what sockets buffer
    assert MAX_BODY_BYTES < sent < 16 * MAX_BODY_BYTES


async def test_answers_that_never_begin_are_cut_at_the_cap_too() -> None:
    """1xx heads are not the answer: a server sending them without end is cut off as a
    body without end is."""
    async def informational(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await head_of(reader)
        while True:
            writer.write(b"HTTP/1.1 102 Processing\r\n\r\n" * 1000)
            await writer.drain()

    async with raw_server(informational) as target, asyncio.timeout(20):
        with pytest.raises(ConnectError, match="RemoteProtocolError: answer over 1024 KiB"):
            await open_socket(target, open_timeout=10)


async def test_a_declared_length_over_the_cap_is_refused_before_any_of_it() -> None:
    async def huge(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await head_of(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n")
        await writer.drain()
        await reader.read()  # and send nothing more: only the head can end the wait

    async with raw_server(huge) as target, asyncio.timeout(5):
        with pytest.raises(ConnectError, match="answer over 1024 KiB"):
            await open_socket(target, open_timeout=30)


@pytest.mark.parametrize(("answer", "expected"), [
    (b"HELLO THERE\r\n\r\n", "RemoteProtocolError"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{\"short\":", "RemoteProtocolError"),
    (b"", "RemoteProtocolError: the server closed the connection without an answer"),
    (b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 70_000 + b"\r\n\r\n", "RemoteProtocolError"),
])
async def test_a_malformed_or_missing_answer_is_a_protocol_error(
    answer: bytes, expected: str
) -> None:
    async def bad(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await head_of(reader)
        writer.write(answer)
        await writer.drain()

    async with raw_server(bad) as target, asyncio.timeout(10):
        with pytest.raises(ConnectError, match=f"cannot reach {target.base_url}: {expected}"):
            await open_socket(target, open_timeout=5)


async def test_a_server_that_never_answers_is_a_read_timeout_within_the_open_timeout() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await head_of(reader)
        await reader.read()  # until the client gives up and hangs up

    async with raw_server(silent) as target, asyncio.timeout(10):
        with pytest.raises(ConnectError, match=r"ReadTimeout: no answer within 0\.3s"):
            await open_socket(target, open_timeout=0.3)


async def test_a_connection_never_accepted_is_a_connect_timeout() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        # the backlog is full with connections nobody accepts: the kernel drops the next SYNs
        fillers = [socket.create_connection(("127.0.0.1", port), timeout=5)]
        try:
            target = Target(f"http://127.0.0.1:{port}", Secret(TOKEN))
            async with asyncio.timeout(10):
                with pytest.raises(ConnectError, match=r"ConnectTimeout: no connection within"):
                    await open_socket(target, open_timeout=0.3)
        finally:
            for filler in fillers:
                filler.close()


async def test_chunked_and_close_delimited_answers_are_read_whole() -> None:
    """The descriptor chunked, the ticket delimited by the server closing: both read, and
    the handshake gets as far as the upgrade (which this server does not speak)."""
    asked: list[list[bytes]] = []

    async def answers(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await head_of(reader)
        asked.append(head)
        if head[0].startswith(b"GET /.well-known/t3/environment "):
            half = len(DESCRIPTOR) // 2
            writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            for part in (DESCRIPTOR[:half], DESCRIPTOR[half:]):
                writer.write(b"%x\r\n%s\r\n" % (len(part), part))
            writer.write(b"0\r\n\r\n")
        elif head[0].startswith(b"POST /api/auth/websocket-ticket "):
            writer.write(b'HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{"ticket":"wst_raw"}')
        else:
            writer.write(b"HTTP/1.1 418 I'm a teapot\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()

    async with raw_server(answers) as target, asyncio.timeout(10):
        with pytest.raises(ConnectError, match="websocket upgrade answered HTTP 418"):
            await open_socket(target, open_timeout=5)
    assert [head[0].split(b"?")[0] for head in asked] == [
        b"GET /.well-known/t3/environment HTTP/1.1",
        b"POST /api/auth/websocket-ticket HTTP/1.1",
        b"GET /ws",
    ]
    assert f"Authorization: Bearer {TOKEN}".encode() in asked[1]


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that no CA signed, made with the openssl command."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
         "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60)
    return cert, key


@asynccontextmanager
async def tls_fake(server: FakeServer, cert: Path, key: Path) -> AsyncIterator[Target]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    async def handler(ws: object) -> None:
        await ws.wait_closed()  # type: ignore[attr-defined]

    async with serve(handler, "127.0.0.1", 0, ssl=context,
                     process_request=server.respond) as running:
        port = running.sockets[0].getsockname()[1]
        yield Target(f"https://127.0.0.1:{port}", Secret(TOKEN))


async def test_a_server_whose_certificate_no_ca_signed_is_not_trusted(
    self_signed: tuple[Path, Path],
) -> None:
    server = FakeServer()
    async with tls_fake(server, *self_signed) as target, asyncio.timeout(10):
        with pytest.raises(ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await open_socket(target, open_timeout=5)
    assert server.tickets_issued == 0


async def test_https_verifies_the_certificate_and_the_name_it_was_given(
    self_signed: tuple[Path, Path],
) -> None:
    cert, key = self_signed
    trusting = ssl.create_default_context(cafile=str(cert))
    server = FakeServer()
    async with tls_fake(server, cert, key) as target, asyncio.timeout(10):
        async with HandshakeClient(timeout=5, verify=trusting, trust_env=False) as http:
            assert (await handshake.fetch_descriptor(http, target)).environment_id == "env-test"
        # the same certificate asked for under another name: the name is checked
        other = Target(target.base_url.replace("127.0.0.1", "localhost"), target.token)
        async with HandshakeClient(timeout=5, verify=trusting, trust_env=False) as http:
            with pytest.raises(ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await handshake.fetch_descriptor(http, other)


async def test_a_token_no_header_can_carry_is_refused_without_quoting_it() -> None:
    """A Target built in code skips resolve_target's check; h11 then refuses the header, and
    its own message would quote the header's value: the token."""
    secret = "tok-SECRET-\n-must-not-show"

    async def descriptor(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await head_of(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s"
                     % (len(DESCRIPTOR), DESCRIPTOR))
        await writer.drain()

    async with raw_server(descriptor) as target, asyncio.timeout(10):
        with pytest.raises(ConnectError) as info:
            await open_socket(Target(target.base_url, Secret(secret)), open_timeout=5)
    assert "LocalProtocolError" in str(info.value) and "SECRET" not in str(info.value)
