"""`t3tui web` in a real browser: headless Chromium (Debian's `chromium`) driven over the
DevTools protocol against `t3tui web --port 0` on the demo (two reference backends with real
agent processes). It reads the tree from the page's terminal, presses a key and sees it act,
and saves a PNG. Without Chromium it is skipped, saying why.

The PNG goes to `screenshots/web-test.png` (not tracked); `make snapshots` sets
`T3TUI_WEB_SCREENSHOT=screenshots/web.png` to refresh the README's picture.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from t3tui.backend.testing import descendant_pids, pid_alive, poll_until
from t3tui.model.labels import STATE_LOOK
from tests.tui.browser import Browser, find_chromium

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = find_chromium()


def screenshot_path() -> Path:
    return ROOT / os.environ.get("T3TUI_WEB_SCREENSHOT", "screenshots/web-test.png")


@pytest.fixture
def web(isolated_config: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`t3tui web --port 0` on the demo; yields the URL it printed (token included)."""
    proc = subprocess.Popen([sys.executable, "-m", "t3tui", "web", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "TERM": "xterm-256color"})
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 90)
        line = proc.stdout.readline() if ready else ""
        found = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=\S+)", line)
        assert found, f"no URL printed: {line!r}"
        yield found.group(1), proc
    finally:
        children = descendant_pids(proc.pid)
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        poll_until(lambda: not any(pid_alive(p) for p in children), timeout=30,
                   what="the demo backends and app processes gone")


def until_text(browser: Browser, check: Callable[[str], bool], what: str,
               timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = browser.screen_text()
        if check(text):
            return text
        time.sleep(0.2)
    raise AssertionError(f"{what}: not on the page's terminal within {timeout:g}s:\n{text}")


def status_of(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}),
                                    timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.mark.skipif(CHROMIUM is None, reason=(
    "needs headless Chromium (Debian: apt-get install chromium), which is not installed; "
    ".ci/run installs it when it runs as root"))
def test_the_browser_shows_the_tree_and_a_key_acts(
        web: tuple[str, subprocess.Popen[str]]) -> None:
    url, proc = web
    base = url.split("/?")[0]
    # without the token: nothing but the library's static files
    assert status_of(base + "/") == 401
    assert status_of(base + "/?token=wrong") == 403
    assert status_of(base + "/", {"Host": "attacker.example"}) == 421
    assert CHROMIUM is not None
    browser = Browser(CHROMIUM)
    try:
        browser.open(url)
        text = until_text(browser, lambda t: all(
            word in t for word in ("laptop", "devbox", "Fan out the checks",
                                   "Parallel delegation")), "the two-environment tree")
        assert re.search(r"laptop +[●○]", text) and re.search(r"devbox +[●○]", text)
        assert "?token=" not in browser.evaluate("location.href")  # redirected off the token
        until_text(browser, lambda t: "● live · 2 environments" in t, "both live")
        shot = screenshot_path()
        shot.parent.mkdir(exist_ok=True)
        browser.screenshot(shot)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        browser.press("p")  # problems only: the healthy threads leave the tree
        text = until_text(browser, lambda t: "filter: problems only" in t,
                          "the problems-only filter")
        # as tree rows (glyph, then title): a toast may still name a finished thread
        row = "[" + "".join(g for g, _word in STATE_LOOK.values()) + "] "
        assert not re.search(row + "Fan out the checks", text)
        assert re.search(row + "Deploy when approved", text)
    finally:
        browser.close()
    assert proc.poll() is None  # the server outlives its browser tab


@pytest.fixture
def web_frames(isolated_config: Path) -> Iterator[str]:
    """`t3tui web --port 0 --frames showcase`: no backend, for the guard alone."""
    proc = subprocess.Popen([sys.executable, "-m", "t3tui", "web", "--port", "0", "--frames",
                             "showcase"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        line = proc.stdout.readline() if ready else ""
        found = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=\S+)", line)
        assert found, f"no URL printed: {line!r}"
        yield found.group(1)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM  # as every t3tui command
        assert proc.stderr is not None
        err = proc.stderr.read()
        assert "token=" not in err and "Traceback" not in err  # nothing logged the token


def test_the_web_server_admits_only_the_token_holder_from_loopback(web_frames: str) -> None:
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    base, token = web_frames.split("/?token=")
    port = base.rsplit(":", 1)[1]
    assert status_of(base + "/") == 401
    assert status_of(base + "/?token=" + token[:-1]) == 403
    assert status_of(base + "/download/x") == 401
    assert status_of(base + "/", {"Host": "attacker.example"}) == 421
    assert status_of(base + "/static/js/textual.js") == 200  # the library's own files
    # the token sets the session cookie and sends the browser to / without it in the URL
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with opener.open(web_frames, timeout=10) as page:
        assert page.status == 200 and page.url == base + "/"
        html = page.read().decode()
    assert f"ws://127.0.0.1:{port}/ws" in html and "googleapis" not in html
    cookie = next(c for c in opener.handlers if isinstance(c, urllib.request.HTTPCookieProcessor))
    session = next(iter(cookie.cookiejar))
    assert session.has_nonstandard_attr("HttpOnly") and session.name == "t3tui_web"
    header = {"Cookie": f"{session.name}={session.value}"}
    ws = f"ws://127.0.0.1:{port}/ws?width=80&height=24"
    for headers in ({}, {**header, "Origin": "http://attacker.example"}):
        with pytest.raises(InvalidStatus) as refused:
            connect(ws, additional_headers=headers, origin=None, open_timeout=10).close()
        assert refused.value.response.status_code in (401, 403)
    with connect(ws, additional_headers=header, origin=f"http://127.0.0.1:{port}",
                 open_timeout=10) as admitted:
        assert admitted.recv(timeout=30)  # the app's first bytes
