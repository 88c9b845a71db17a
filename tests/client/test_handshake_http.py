"""The handshake's two HTTP requests: without httpcore or anyio on a direct URL, through
httpx's own proxy transport when the environment names a proxy.

Both against real servers: the reference backend, and a tiny proxy that records what it is
asked and answers 502.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from t3tui.backend.testing import RunningBackend
from t3tui.client.errors import ConnectError
from t3tui.client.handshake import open_socket
from t3tui.client.secret import Secret, Target

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
TOKEN_VAR = "T3TUI_TEST_HANDSHAKE_TOKEN"  # the token reaches the child by env, never argv

_FRESH = r"""
import asyncio, json, os, sys
from t3tui.client.handshake import open_socket
from t3tui.client.secret import Secret, Target

async def main():
    ws = await open_socket(Target(sys.argv[1], Secret(os.environ[TOKEN_VAR])), open_timeout=20)
    await ws.close()

asyncio.run(main())
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def _without_proxies() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.upper() not in PROXY_VARS}


async def test_a_fresh_process_opens_the_socket_without_httpcore_or_anyio(
    backend: RunningBackend,
) -> None:
    """httpcore and anyio cost a fresh process ~30 ms of imports on its way to the first
    tree; a direct URL needs neither (httpx's proxy transport still brings them when the
    environment names a proxy, the next test)."""
    env = dict(_without_proxies(), **{TOKEN_VAR: backend.token})
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", f"TOKEN_VAR = {TOKEN_VAR!r}\n{_FRESH}", backend.url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()[-2000:]
    loaded = set(json.loads(out.decode().strip().splitlines()[-1]))
    assert {"httpx", "h11", "websockets"} <= loaded  # the probe really ran the handshake
    assert not loaded & {"httpcore", "anyio"}, sorted(loaded & {"httpcore", "anyio"})


@asynccontextmanager
async def recording_proxy() -> AsyncIterator[tuple[str, list[str]]]:
    """An HTTP proxy that writes down each request line and answers 502."""
    seen: list[str] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            seen.append(head.split(b"\r\n", 1)[0].decode("latin-1"))
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n"
                         b"Connection: close\r\n\r\n")
            await writer.drain()
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", seen
    finally:
        server.close()
        await server.wait_closed()


async def test_a_proxy_named_by_the_environment_still_gets_the_requests(
    backend: RunningBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    async with recording_proxy() as (proxy_url, seen):
        monkeypatch.setenv("HTTP_PROXY", proxy_url)
        with pytest.raises(ConnectError, match="answered HTTP 502"):
            await open_socket(Target(backend.url, Secret(backend.token)), open_timeout=10)
    # the proxy was asked for the descriptor in absolute form: httpx's proxy transport
    assert seen == [f"GET {backend.url}/.well-known/t3/environment HTTP/1.1"]


async def test_a_proxy_that_refuses_is_the_error_though_the_server_listens(
    backend: RunningBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    async with recording_proxy() as (proxy_url, _):
        pass  # closed: nothing listens at the proxy's port any more
    monkeypatch.setenv("HTTP_PROXY", proxy_url)
    with pytest.raises(ConnectError) as info:
        await open_socket(Target(backend.url, Secret(backend.token)), open_timeout=10)
    # not "is the server running?": the server is; the proxy is what refused
    assert str(info.value) == (
        f"cannot reach {backend.url} through the environment's proxy (HTTP_PROXY, HTTPS_PROXY "
        "or ALL_PROXY; NO_PROXY lists hosts reached directly): the proxy refused the connection")
    assert info.value.refused


async def test_a_host_no_proxy_lists_is_reached_directly(
    backend: RunningBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    async with recording_proxy() as (proxy_url, seen):
        monkeypatch.setenv("HTTP_PROXY", proxy_url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        ws = await open_socket(Target(backend.url, Secret(backend.token)), open_timeout=10)
        await ws.close()
    assert seen == []
