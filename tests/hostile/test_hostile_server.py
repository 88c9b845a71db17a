"""Standing hostile-input test: real `t3tui status` / `watch` processes and the app (Pilot)
against a server built from the protocol document that sends crafted and random frames.

For a bounded time each: no traceback, no raw control byte on stdout or stderr, no hang past
the deadlines, an exit code from the documented set.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time

import pytest
from textual.widgets import Static

from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.client.state import Reconnecting
from t3tui.model import Supervisor
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.hostile.server import TOKEN, HostileServer, raw_controls

pytestmark = pytest.mark.e2e


def t3tui(url: str, *args: str, timeout: float) -> tuple[int, bytes, bytes, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("T3TUI_", "T3CODE_"))}
    env["COLUMNS"] = "120"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "t3tui", *args, "--url", url, "--token", TOKEN],
        capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL,
    )
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started


def assert_clean(code: int, out: bytes, err: bytes, codes: set[int]) -> None:
    assert code in codes, (code, err[-2000:])
    assert b"Traceback" not in err, err[-4000:]
    assert raw_controls(out) == [], raw_controls(out)[:10]
    assert raw_controls(err) == [], (raw_controls(err)[:10], err[-2000:])


@pytest.mark.parametrize("mode,seed", [("crafted", 1), ("crafted", 2), ("random", 3)])
def test_status_against_a_hostile_server(mode: str, seed: int) -> None:
    with HostileServer(mode=mode, seed=seed).running() as server:
        code, out, err, _ = t3tui(server.url, "status", "--connect-timeout", "5", timeout=30)
    assert_clean(code, out, err, {0, 1, 2})
    assert server.errors == []


@pytest.mark.parametrize("seed", [31, 32])
def test_status_shows_hostile_text_inert_once_synchronized(seed: int) -> None:
    with HostileServer(mode="calm", seed=seed).running() as server:
        code, out, err, _ = t3tui(server.url, "status", "--connect-timeout", "10", timeout=40)
    assert_clean(code, out, err, {0, 1})  # it synchronized: a lone surrogate in a thread
    text = out.decode()                     # id no longer fails the client's socket
    assert "STATE" in text and "THREAD" in text, text
    assert any(mark in text for mark in ("␛", "\\x9b", "\\u202e", "\ufffd", "␀")), text


def test_status_json_stays_exact_json_against_a_hostile_server() -> None:
    import json

    with HostileServer(mode="crafted", seed=7).running() as server:
        code, out, err, _ = t3tui(server.url, "status", "--json", "--connect-timeout", "5",
                                  timeout=30)
    assert_clean(code, out, err, {0, 1, 2})
    if code != 2:
        json.loads(out)  # escaped by the encoder, never raw bytes
        assert out.isascii()


@pytest.mark.parametrize("mode,seed", [("crafted", 11), ("random", 12)])
def test_watch_against_a_hostile_server_that_also_drops_the_socket(mode: str, seed: int) -> None:
    with HostileServer(mode=mode, seed=seed, drop_after=1.0).running() as server:
        code, out, err, took = t3tui(server.url, "watch", "--duration", "4",
                                     "--connect-timeout", "5", timeout=40)
    assert_clean(code, out, err, {0, 2})
    assert took < 25, took
    assert server.sockets >= 1 and server.errors == []
    if code == 0:
        assert b"connection" in out


def test_watch_ndjson_against_a_hostile_server() -> None:
    import json

    with HostileServer(mode="crafted", seed=13, drop_after=1.0).running() as server:
        code, out, err, _ = t3tui(server.url, "watch", "--ndjson", "--duration", "3",
                                  "--connect-timeout", "5", timeout=40)
    assert_clean(code, out, err, {0, 2})
    for line in out.splitlines():
        json.loads(line)


@pytest.mark.parametrize("mode,waiting_for", [
    ("silent-config", "server.getConfig"), ("no-sync", "synchronized")])
def test_a_server_that_never_answers_is_a_bounded_wait_that_names_what_it_waited_for(
    mode: str, waiting_for: str
) -> None:
    with HostileServer(mode=mode).running() as server:
        code, out, err, took = t3tui(server.url, "status", "--connect-timeout", "2", timeout=30)
    assert_clean(code, out, err, {2})
    line = err.decode()
    assert "not synchronized within 2s" in line and waiting_for in line, line
    assert took < 15


@pytest.mark.parametrize("mode,reason", [
    ("silent-config", "no answer to server.getConfig within 0.5s"),
    ("no-sync", "no `synchronized` from the server within 0.5s")])
async def test_the_session_drops_and_reconnects_a_server_that_never_answers(
    mode: str, reason: str
) -> None:
    with HostileServer(mode=mode).running() as server:
        session = Session(Target(server.url, Secret(TOKEN)), Supervisor(),
                          backoff=Backoff.fast(), request_timeout=0.5, sync_timeout=0.5)
        runner = asyncio.create_task(session.run())
        try:
            state = await asyncio.wait_for(session.state.wait_for(
                lambda s: isinstance(s, Reconnecting) and s.attempt >= 2), 20)
        finally:
            await session.stop()
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
    assert isinstance(state, Reconnecting) and state.last_error == reason
    assert server.sockets >= 2  # it reconnected, with back-off, instead of waiting for ever


FORBIDDEN_CHARS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def shown_text(app: SupervisorApp) -> list[str]:
    """Every text the app has put in a widget: tree labels and every Static's content."""
    texts = [str(node.label) for node in app.query_one(ThreadTree).nodes.values()]
    for screen in app.screen_stack:
        texts += [str(w.render()) for w in screen.query(Static)]
    texts += [n.message + n.title for n in app._notifications]
    return texts


@pytest.mark.parametrize("mode,seed", [("crafted", 21), ("random", 22)])
async def test_the_app_against_a_hostile_server(mode: str, seed: int) -> None:
    with HostileServer(mode=mode, seed=seed, drop_after=1.5).running() as server:
        source = LiveSource(Target(server.url, Secret(TOKEN)), backoff=Backoff.fast(),
                            ping_interval=1.0)
        app = SupervisorApp(source, config=TuiConfig(bell=False))
        async with app.run_test(size=(140, 40)) as pilot:
            loop = asyncio.get_running_loop()
            start = loop.time()
            keys = ["down", "down", "up", "enter", "escape", "down", "end", "home"]
            n = 0
            # a bounded session of moving around: 5 s, and on until the app has lived through
            # a dropped socket (a loaded machine can take longer to reconnect; at most 60 s)
            while (elapsed := loop.time() - start) < 5 or (server.sockets < 2 and elapsed < 60):
                await pilot.press(keys[n % len(keys)])
                n += 1
                await pilot.pause(0.05)
                for text in shown_text(app):
                    assert not FORBIDDEN_CHARS.search(text), repr(text[:300])
            assert server.sockets >= 2  # it lived through dropped sockets
            assert app.view is not None
    assert server.errors == []
