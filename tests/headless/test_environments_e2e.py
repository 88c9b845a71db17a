"""Headless commands over two environments (`--env NAME=URL`): two reference backends on
127.0.0.1:0 running the same scenario, so every thread id exists on both."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from t3tui.backend.testing import RunningBackend, running_backend, wait_until
from tests.headless.cli import cli, server_args
from tests.headless.test_commands_e2e import launch

pytestmark = pytest.mark.e2e

PARENT = "thread-parent"


@pytest.fixture
async def two(monkeypatch: pytest.MonkeyPatch,
              tmp_path: Path) -> AsyncIterator[tuple[RunningBackend, RunningBackend]]:
    monkeypatch.setenv("HOME", str(tmp_path))  # no user config file
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("T3TUI_CONFIG", raising=False)
    for name in ("T3TUI_URL", "T3CODE_URL", "T3TUI_TOKEN", "T3CODE_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    async with contextlib.AsyncExitStack() as stack:
        laptop = await stack.enter_async_context(running_backend(scenario="settle-unsubscribe"))
        devbox = await stack.enter_async_context(running_backend(scenario="settle-unsubscribe"))
        monkeypatch.setenv("T3TUI_TOKEN_LAPTOP", laptop.token)
        monkeypatch.setenv("T3TUI_TOKEN_DEVBOX", devbox.token)
        yield laptop, devbox


def envs(laptop: RunningBackend, devbox: RunningBackend | str) -> list[str]:
    url = devbox if isinstance(devbox, str) else devbox.url
    return ["--env", f"laptop={laptop.url}", "--env", f"devbox={url}"]


async def test_status_json_lists_environments_and_each_threads_environment(
        two: tuple[RunningBackend, RunningBackend]) -> None:
    laptop, devbox = two
    result = await cli("status", "--json", *envs(laptop, devbox))
    assert result.code == 0, result.err
    doc = result.json()
    assert [(e["name"], e["url"], e["connected"], e["error"], e["threads"])
            for e in doc["environments"]] == [
        ("laptop", laptop.url, True, None, 2), ("devbox", devbox.url, True, None, 2)]
    assert [(t["environment"], t["id"]) for t in doc["threads"] if t["depth"] == 0] == [
        ("laptop", PARENT), ("devbox", PARENT)]
    assert doc["counts"]["done"] == 2 and doc["synchronized"] and doc["exitCode"] == 0
    # human output: one section per environment
    human = await cli("status", *envs(laptop, devbox))
    assert human.code == 0
    assert human.out.index("── laptop") < human.out.index("── devbox")
    assert human.out.count("Seed 004 parent") == 2


async def test_one_environment_unreachable_still_reports_the_other(
        two: tuple[RunningBackend, RunningBackend], monkeypatch: pytest.MonkeyPatch) -> None:
    laptop, _ = two
    result = await cli("status", "--json", "--connect-timeout", "2",
                       *envs(laptop, "http://127.0.0.1:9"))
    assert result.code == 2
    assert result.err.startswith("t3tui: environment devbox: ") and result.err.count("\n") == 1
    doc = result.json()
    devbox = doc["environments"][1]
    assert devbox["name"] == "devbox" and not devbox["connected"] and devbox["error"]
    assert {t["environment"] for t in doc["threads"]} == {"laptop"}
    assert doc["exitCode"] == 2
    human = await cli("status", "--connect-timeout", "2", *envs(laptop, "http://127.0.0.1:9"))
    assert human.code == 2 and "✖ not reached" in human.out and "Seed 004 parent" in human.out


async def test_a_qualified_thread_is_acted_on_in_its_own_environment(
        two: tuple[RunningBackend, RunningBackend]) -> None:
    laptop, devbox = two
    ambiguous = await cli("settle", PARENT, "--force", *envs(laptop, devbox))
    assert ambiguous.code == 2
    assert ambiguous.err == (f"t3tui: '{PARENT}' is in laptop and devbox: qualify it as "
                             f"NAME:{PARENT}\n")
    result = await cli("settle", f"devbox:{PARENT}", "--force", *envs(laptop, devbox))
    assert result.code == 0, result.err + result.out
    assert devbox.engine.shell_row(PARENT).settled_override is not None
    assert laptop.engine.shell_row(PARENT).settled_override is None
    missing = await cli("settle", "devbox:no-such-thread", *envs(laptop, devbox))
    assert missing.code == 2 and "no thread 'no-such-thread' in environment devbox" in missing.err
    # a bare THREAD found in one environment only needs no qualifier
    child = (await cli("status", "--json", *envs(laptop, devbox))).json()
    child_id = next(t["id"] for t in child["threads"] if t["depth"] == 1)
    unique = await cli("interrupt", child_id, *envs(laptop, "http://127.0.0.1:9"),
                       "--connect-timeout", "2")
    assert (unique.code, unique.out) == (
        1, "nothing to interrupt: no active run · Same-session child\n"), unique


async def test_one_server_document_names_no_environment(
        two: tuple[RunningBackend, RunningBackend]) -> None:
    laptop, _ = two
    doc = (await cli("status", "--json", *server_args(laptop))).json()
    assert doc["environments"] == [{
        "name": None, "url": laptop.url, "connected": True, "error": None,
        "synchronized": True, "counts": doc["counts"], "threads": 2, "findings": 0,
        "watching": doc["environments"][0]["watching"]}]
    watching = doc["environments"][0]["watching"]  # how many ended just now: timing's
    assert (watching["unwatched"], watching["cap"]) == (0, 1000)
    assert watching["active"] == watching["watched"] <= 2
    assert {t["environment"] for t in doc["threads"]} == {None}


async def test_watch_names_each_lines_environment(
        two: tuple[RunningBackend, RunningBackend]) -> None:
    laptop, devbox = two
    before = [len(b.engine.core._listeners) for b in two]
    watching = asyncio.create_task(cli("watch", "--ndjson", "--duration", "8",
                                       *envs(laptop, devbox)))
    # both subscribed (a shell and thread streams each), then a new thread on devbox only,
    # that runs a second: whether or not it is in the baseline, its run is a change
    await wait_until(lambda: all(len(b.engine.core._listeners) > n + 1
                                 for b, n in zip(two, before, strict=True)),
                     timeout=10, what="watch subscribed to both")
    thread_id = await launch(devbox, "Run `sleep 1`, then reply HELLO", "Devbox only")
    result = await watching
    assert result.code == 0, result.err
    records = [json.loads(line) for line in result.out.splitlines()]
    assert {(r["environment"], r["state"]) for r in records if r["kind"] == "connection"} == {
        ("laptop", "live"), ("devbox", "live")}
    changed = [r for r in records if r["kind"] != "connection"]
    assert {r["environment"] for r in changed} == {"devbox"}
    assert any(r["threadId"] == thread_id and r["from"] == "running" for r in changed), changed
