"""The local attack surface, over real sockets and real files: Origin and Host checks (DNS
rebinding, a hostile page), the token kept out of logs, errors and `ps`, private files
whatever the umask, and a loud warning when listening beyond loopback."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from t3tui.backend.testing import BackendProcess, running_backend, wait_until
from tests.backend.transport.rawclient import RawRpc, get_ticket, ws_url
from tests.backend.transport.test_commands import LAUNCH, launch

pytestmark = pytest.mark.e2e

DESCRIPTOR = "/.well-known/t3/environment"


async def status_of(url: str, path: str, **headers: str) -> tuple[int, dict]:
    async with httpx.AsyncClient() as http:
        response = await http.get(url + path, headers=headers)
    return response.status_code, response.json()


async def upgrade_status(url: str, token: str, origin: str | None) -> int:
    ticket = await get_ticket(url, token)
    try:
        ws = await connect(ws_url(url, ticket), origin=origin)  # type: ignore[arg-type]
    except InvalidStatus as exc:
        return exc.response.status_code
    await ws.close()
    return 101


@pytest.mark.parametrize("host", ["evil.example", "evil.example:3773", "attacker.test.",
                                  "192.168.7.7", "[2001:db8::1]:80", ""])
async def test_a_foreign_host_header_is_refused_dns_rebinding(backend, host) -> None:
    code, body = await status_of(backend.url, DESCRIPTOR, Host=host)
    assert (code, body["code"]) == (403, "forbidden_host")
    # the ticket route too: a rebinding page with a stolen token gets nothing
    async with httpx.AsyncClient() as http:
        response = await http.post(backend.url + "/api/auth/websocket-ticket", headers={
            "Host": host, "Authorization": f"Bearer {backend.token}"})
    assert response.status_code == 403


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "localhost:{port}", "127.0.0.1:{port}",
                                  "[::1]:{port}", "127.1.2.3"])
async def test_loopback_host_names_are_accepted(backend, host) -> None:
    code, _ = await status_of(backend.url, DESCRIPTOR, Host=host.format(port=backend.port))
    assert code == 200


async def test_the_websocket_upgrade_checks_the_origin(backend) -> None:
    port = backend.port
    assert await upgrade_status(backend.url, backend.token, None) == 101  # not a browser
    for own in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
        assert await upgrade_status(backend.url, backend.token, own) == 101
    for foreign in ("http://evil.example", f"http://evil.example:{port}", "null",
                    f"http://localhost:{port + 1}", f"https://127.0.0.1:{port}", "file://"):
        assert await upgrade_status(backend.url, backend.token, foreign) == 403, foreign


async def test_configured_origins_are_accepted_and_only_those() -> None:
    async with running_backend(allowed_origins=["http://localhost:5173",
                                                "https://T3.Example.com/"]) as backend:
        for origin in ("http://localhost:5173", "https://t3.example.com"):
            assert await upgrade_status(backend.url, backend.token, origin) == 101, origin
        assert await upgrade_status(backend.url, backend.token, "http://localhost:5174") == 403
        code, _ = await status_of(backend.url, DESCRIPTOR, Host="t3.example.com")
        assert code == 200  # a configured origin's host name is an accepted Host
        code, _ = await status_of(backend.url, DESCRIPTOR, Origin="https://evil.example")
        assert code == 403


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def t3tui(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("T3TUI_", "T3CODE_"))}
    return subprocess.run([sys.executable, "-m", "t3tui", *args], capture_output=True,
                          text=True, timeout=60, env={**clean, **(env or {})},
                          stdin=subprocess.DEVNULL)


def test_a_token_in_url_userinfo_is_never_echoed() -> None:
    token = "userinfo-secret-7f3a9c"
    for url in (f"http://u:{token}@127.0.0.1:{free_port()}", f"http://{token}@127.0.0.1:1",
                f"http://u:{token}@not a host"):
        proc = t3tui("status", "--url", url, "--connect-timeout", "2")
        assert proc.returncode == 2, proc.stderr
        assert token not in proc.stderr + proc.stdout, proc.stderr
        assert "Traceback" not in proc.stderr


async def test_the_client_reads_the_token_from_a_file_or_the_url(backend, tmp_path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(backend.token + "\n")
    token_file.chmod(0o600)
    proc = await _in_thread(t3tui, "status", "--url", backend.url, "--token-file",
                            str(token_file))
    assert proc.returncode == 0, proc.stderr
    host = backend.url.removeprefix("http://")
    proc = await _in_thread(t3tui, "status", "--url", f"http://me:{backend.token}@{host}")
    assert proc.returncode == 0, proc.stderr
    missing = await _in_thread(t3tui, "status", "--url", backend.url, "--token-file",
                               str(tmp_path / "nope"))
    assert missing.returncode == 2 and "cannot read the token file" in missing.stderr


async def _in_thread(fn, *args):  # type: ignore[no-untyped-def]
    import asyncio

    return await asyncio.to_thread(fn, *args)


async def test_serve_keeps_the_token_out_of_debug_logs_and_ps(tmp_path) -> None:
    token = "serve-secret-token-5d1e8b2a"
    token_file = tmp_path / "token"
    token_file.write_text(token)
    token_file.chmod(0o600)
    server = BackendProcess(scenario=None, token="unused-env-token",
                            extra_args=["--token-file", str(token_file), "--log-level", "debug"])
    with server:
        server.token = token  # the file wins over the environment
        cmdline = Path(f"/proc/{server.pid}/cmdline").read_bytes()
        assert token.encode() not in cmdline
        async with await RawRpc.open(server.url, token) as client:
            await client.ok("server.getConfig", {})
        async with httpx.AsyncClient() as http:  # the token where it does not belong
            await http.get(f"{server.url}/api/auth/session?token={token}",
                           headers={"Authorization": f"Bearer {token}x"})
            await http.post(f"{server.url}/api/auth/websocket-ticket",
                            headers={"Authorization": f"Bearer {token}"})
        server.stop()
        log = server.stderr_text()
    assert "DEBUG" in log  # debug logging really was on
    assert token not in log, [line for line in log.splitlines() if token in line][:3]


async def test_data_dir_and_files_are_private_whatever_the_umask(tmp_path) -> None:
    data = tmp_path / "data"
    old = os.umask(0o022)  # a loose umask, inherited by the server
    try:
        server = BackendProcess(scenario=None, data_dir=data).start()
    finally:
        os.umask(old)
    try:
        async with await RawRpc.open(server.url, server.token) as client:
            value = await client.ok(LAUNCH, launch("thread-private", "Reply PONG"))
            assert value["threadId"] == "thread-private"
        await wait_until(lambda: list((data / "provider-logs").glob("*.jsonl")), timeout=20,
                         what="a provider log")
    finally:
        server.stop()
    seen = 0
    for path in [data, *data.rglob("*")]:
        if path.is_symlink():
            continue
        mode = stat.S_IMODE(path.stat().st_mode)
        if path.is_dir():
            assert mode == 0o700, (path, oct(mode))
        else:
            assert mode & 0o077 == 0, (path, oct(mode))
        seen += 1
    assert (data / "events.sqlite3").exists() and seen > 3


async def test_an_existing_open_data_dir_is_made_private(tmp_path) -> None:
    data = tmp_path / "loose"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    async with running_backend(data_dir=data):
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        assert stat.S_IMODE((data / "events.sqlite3").stat().st_mode) == 0o600


async def test_listening_beyond_loopback_is_loud_and_still_needs_the_token() -> None:
    server = BackendProcess(scenario=None, extra_args=["--host", "0.0.0.0"])
    with server:
        port = server.port
        local = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient() as http:
            refused = await http.post(f"{local}/api/auth/websocket-ticket")
            assert refused.status_code == 401
        async with await RawRpc.open(local, server.token) as client:
            await client.ok("server.getConfig", {})
        server.stop()
        err = server.stderr_text()
    assert "WARNING: listening on every network interface" in err, err
    assert "token" in err and server.token not in err
