"""`t3tui serve` as a user runs it: help, startup output, errors, and a clean shutdown."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from t3tui.backend.serve import LISTENING_PREFIX, TOKEN_ENV
from t3tui.backend.testing import BackendProcess, descendant_pids, pid_alive, poll_until
from t3tui.cli import main
from tests.backend.transport.rawclient import ws_url

SERVE_FLAGS = (
    "--host",
    "--port",
    "--token",
    "--data-dir",
    "--scenario",
    "--dispatch",
    "--fault",
    "--print-url-file",
    "--url-file-token",
    "--exit-with-stdin",
    "--log-level",
)


def serve_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "t3tui", "serve", *args]


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != TOKEN_ENV}


def test_help_documents_every_flag(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--help"])
    assert exited.value.code == 0
    # argparse wraps long help, even inside hyphenated words: compare without whitespace.
    text = "".join(capsys.readouterr().out.split())
    for flag in SERVE_FLAGS:
        assert flag in text, flag
    for scenario in ("demo", "parallel-probe", "settle-unsubscribe", "none"):
        assert scenario in text
    assert "settle-drops-child-subscription" in text


def test_a_generated_token_is_printed_once_and_never_logged(tmp_path):
    url_file = tmp_path / "server.json"
    proc = subprocess.Popen(
        serve_argv("--port", "0", "--print-url-file", str(url_file), "--log-level", "debug"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_env(),
        text=True,
    )
    try:
        listening, hint = proc.stdout.readline(), proc.stdout.readline()
        assert listening.startswith(LISTENING_PREFIX)
        url = listening.removeprefix(LISTENING_PREFIX).strip()
        token = hint.split("--token ", 1)[1].split()[0]
        info = json.loads(url_file.read_text())
        assert info["url"] == url and info["pid"] == proc.pid and "token" not in info
        assert token not in url_file.read_text()
        response = httpx.post(
            f"{url}/api/auth/websocket-ticket", headers={"Authorization": f"Bearer {token}"}
        )
        ticket = response.json()["ticket"]
        with connect(ws_url(url, ticket)) as ws:  # debug logging prints the request line
            ws.send(json.dumps({"_tag": "Ping"}))
            assert json.loads(ws.recv(timeout=10)) == {"_tag": "Pong"}
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130  # Ctrl-C
    assert (hint + out).count(token) == 1
    assert "wsTicket=<redacted>" in err, "debug logging shows the request line, redacted"
    assert token not in err and ticket not in err and ticket not in out
    assert not url_file.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--port", "70000"), "--port must be between 0 and 65535"),
        (("--port", "0", "--fault", "no-such-fault"), "unknown fault no-such-fault"),
        (("--port", "0", "--scenario", "no-such-scenario"), "no-such-scenario"),
        (("--port", "0", "--data-dir", "/proc/forbidden"), "--data-dir"),
    ],
)
def test_bad_settings_give_a_clear_error_and_no_traceback(args, message):
    done = subprocess.run(
        serve_argv(*args), capture_output=True, text=True, env=clean_env(), timeout=60
    )
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_a_port_in_use_is_a_clear_error():
    with BackendProcess(scenario=None) as running:
        done = subprocess.run(
            serve_argv("--port", str(running.port)),
            capture_output=True,
            text=True,
            env=clean_env(),
            timeout=60,
        )
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{running.port}" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "SIGINT", "stdin-eof"])
def test_shutdown_stops_every_agent_process(how):
    with BackendProcess(scenario="demo") as backend:
        agents = poll_until(lambda: descendant_pids(backend.pid), timeout=30, what="agents start")
        if how == "stdin-eof":
            backend.close_stdin()
        else:
            backend.send_signal(getattr(signal, how))
        # a signal's end says so, the shell's way: 128+N (143, 129, 130); its input closed is 0
        assert backend.wait(30) == (0 if how == "stdin-eof" else 128 + getattr(signal, how))
    poll_until(
        lambda: not any(pid_alive(pid) for pid in agents),
        timeout=10,
        what=f"agent processes {agents} end with the server",
    )


def test_shutdown_closes_connected_clients_with_going_away():
    with BackendProcess(scenario=None) as backend:
        ticket = httpx.post(
            f"{backend.url}/api/auth/websocket-ticket",
            headers={"Authorization": f"Bearer {backend.token}"},
        ).json()["ticket"]
        with connect(ws_url(backend.url, ticket)) as ws:
            subscribe = {"_tag": "Request", "id": "1", "tag": "orchestration.subscribeShell"}
            ws.send(json.dumps({**subscribe, "payload": {}, "headers": []}))
            assert json.loads(ws.recv(timeout=10))["_tag"] == "Chunk"
            backend.send_signal(signal.SIGTERM)
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=30)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
        assert backend.wait(30) == 128 + signal.SIGTERM


async def test_an_unusable_workspace_is_a_data_dir_error_and_leaks_no_store(tmp_path):
    from t3tui.backend.server import BackendOptions, open_backend

    (tmp_path / "workspace").write_text("a file where the agents' workspace goes")
    options = BackendOptions(data_dir=tmp_path, token="t", port=0)
    # It used to escape as an OSError, which `serve` reported as "cannot listen on ...".
    with pytest.raises(ValueError, match=r"cannot use data dir .*workspace"):
        async with open_backend(options):
            pass
    fd_dir = "/proc/self/fd"
    open_files = [os.readlink(f"{fd_dir}/{fd}") for fd in os.listdir(fd_dir)
                  if os.path.islink(f"{fd_dir}/{fd}")]
    assert not [p for p in open_files if p.startswith(str(tmp_path))]
