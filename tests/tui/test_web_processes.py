"""`t3tui web` leaves no process behind (issue 21: a tab's app outlived its socket and the
server, reparented to PID 1): real `t3tui web` subprocesses, a websocket connected as the
browser does (the token URL, its cookie, a same-origin `Origin`), the process table polled
with a deadline. The URL's token is spent by its first use."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from t3tui.backend.testing import descendant_pids, pid_alive, poll_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


class Web:
    """A running `t3tui web --port 0 --frames showcase` (no backend: the tabs' apps alone)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "t3tui", "web", "--port", "0", "--frames", "showcase"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        line = self.proc.stdout.readline() if ready else ""
        found = re.search(r"open (http://127\.0\.0\.1:(\d+)/\?token=\S+)", line)
        assert found, f"no URL printed: {line!r}"
        self.url, self.port = found.group(1), found.group(2)
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with self.opener.open(self.url, timeout=10) as page:  # the browser's first request
            assert page.status == 200
        jar = next(h for h in self.opener.handlers
                   if isinstance(h, urllib.request.HTTPCookieProcessor)).cookiejar
        self.cookie = "; ".join(f"{c.name}={c.value}" for c in jar)

    def tab(self) -> Any:
        """A websocket as the page opens it; returns once the app drew its first bytes."""
        from websockets.sync.client import connect

        ws = connect(f"ws://127.0.0.1:{self.port}/ws?width=100&height=30",
                     additional_headers={"Cookie": self.cookie},
                     origin=f"http://127.0.0.1:{self.port}", open_timeout=10,
                     legacy=True)  # kept open across the test, not a with block
        assert ws.recv(timeout=60)
        return ws

    def apps(self) -> set[int]:
        return descendant_pids(self.proc.pid)

    def close(self) -> None:
        left = self.apps()
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        for pid in left:
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def web(isolated_config: Path) -> Iterator[Web]:
    server = Web()
    try:
        yield server
    finally:
        server.close()


def gone(pids: set[int]) -> bool:
    return not any(pid_alive(p) for p in pids)


def test_a_tabs_app_ends_within_seconds_of_its_socket_closing(web: Web) -> None:
    first = web.tab()
    mine = poll_until(web.apps, timeout=30, what="the first tab's app process")
    second = web.tab()  # stays: only the dropped tab's app may end
    both = poll_until(lambda: (a := web.apps()) - mine and a, timeout=30,
                      what="the second tab's app process")
    first.close_socket()  # dropped as a closing browser does: no close frame
    poll_until(lambda: gone(mine), timeout=15, what="the dropped tab's app gone")
    assert not gone(both - mine)
    second.close()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP,
                                    signal.SIGKILL],
                         ids=["SIGINT", "SIGTERM", "SIGHUP", "SIGKILL"])
def test_t3tui_web_leaves_no_process_however_it_exits(web: Web, signum: int) -> None:
    tab = web.tab()
    apps = poll_until(web.apps, timeout=30, what="the tab's app process")
    web.proc.send_signal(signum)
    # 128+N as the app, serve and the headless commands exit (a SIGKILL is the kernel's)
    assert web.proc.wait(timeout=30) == (-signum if signum == signal.SIGKILL else 128 + signum)
    poll_until(lambda: gone(apps), timeout=15, what="every tab's app gone with t3tui web")
    tab.close_socket()


def test_a_tabs_app_ends_when_its_input_ends(isolated_config: Path) -> None:
    """The app as textual-serve starts it, its input (the tab's relay) closed without a
    goodbye, as when `t3tui web` is killed outright: the app ends, it does not run on
    unwatched (it used to: the web driver's input thread just stopped reading)."""
    env = {**os.environ, "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver",
           "COLUMNS": "100", "ROWS": "30"}
    proc = subprocess.Popen([sys.executable, "-m", "t3tui", "--frames", "showcase"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline() == b"__GANGLION__\n"
        out = proc.stdout
        # keep reading, as textual-serve's relay does, so the app never waits on a full pipe
        threading.Thread(target=lambda: [None for _ in iter(lambda: out.read(4096), b"")],
                         daemon=True).start()
        proc.stdin.close()
        poll_until(lambda: proc.poll() is not None, timeout=15,
                   what="the app gone after its input ended")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def status_of(opener: urllib.request.OpenerDirector, url: str) -> int:
    try:
        with opener.open(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_urls_token_admits_once(web: Web) -> None:
    # `web` opened the URL once already (the cookie is set); a second browser cannot reuse it
    stranger = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    assert status_of(stranger, web.url) == 403
    try:
        stranger.open(web.url, timeout=10)
    except urllib.error.HTTPError as exc:
        assert "used" in exc.read().decode()
    # the browser that used it keeps its session, also when it opens the URL again
    assert status_of(web.opener, web.url) == 200
    assert status_of(web.opener, web.url.split("/?")[0] + "/") == 200
