"""The process's garbage-collector policy (t3tui.client.collector): taken where the CLI starts,
it freezes what the first full sync holds, once; library use leaves the collector alone."""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import weakref
from collections.abc import Iterator

import pytest

from t3tui.backend.server import RunningBackend
from t3tui.client import collector
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.model import Supervisor


@pytest.fixture
def policy() -> Iterator[None]:
    """The policy taken, as the CLI's start takes it; the test process's collector restored."""
    assert gc.get_freeze_count() == 0
    collector.configure()
    try:
        yield
    finally:
        collector.reset()


async def synced_session(backend: RunningBackend) -> Supervisor:
    sup = Supervisor()
    session = Session(Target(backend.url, Secret(backend.token)), sup,
                      backoff=Backoff.fast(), ping_interval=0.5)
    task = asyncio.create_task(session.run())
    try:
        await session.wait_synchronized(10)
    finally:
        await session.stop()
        await asyncio.gather(task, return_exceptions=True)
    return sup


async def test_the_first_full_sync_freezes_what_is_held_and_only_once(
        backend: RunningBackend, policy: None) -> None:
    assert gc.get_threshold()[0] == collector.GEN0
    first = await synced_session(backend)
    frozen = gc.get_freeze_count()
    assert frozen > 0
    second = await synced_session(backend)  # another sync in this process freezes nothing
    assert gc.get_freeze_count() <= frozen  # (frozen objects dropped since were freed)
    seen = {id(o) for o in gc.get_objects()}  # what the collector still walks
    assert id(first._ix) not in seen
    assert id(second._ix) in seen


async def test_without_the_policy_a_sync_leaves_the_collector_alone(
        backend: RunningBackend) -> None:
    before = gc.get_threshold()
    await synced_session(backend)
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


def test_frozen_data_dropped_is_still_freed(policy: None) -> None:
    """What the policy relies on: the model's data has no cycles, so reference counting frees
    a frozen thread's old data when the model lets it go."""

    class Rows(dict):  # a dict that can be weakly referenced
        pass

    held = {"t1": Rows(title="old", lineage={"parent": None})}
    gone = weakref.ref(held["t1"])
    collector.synced()
    assert gc.get_freeze_count() > 0
    held["t1"] = Rows(title="new")
    assert gone() is None


def test_the_cli_takes_the_policy_for_its_process() -> None:
    probe = ("import gc, sys\nfrom t3tui.cli import main\nsys.argv = ['t3tui', *sys.argv[1:]]\n"
             "main()\nprint(gc.get_threshold()[0])")
    env = {**os.environ, "T3TUI_URL": "", "T3CODE_URL": ""}

    def threshold(*argv: str) -> int:
        done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True,
                              text=True, timeout=60, env=env)
        return int(done.stdout.strip().splitlines()[-1])

    # `status` without a server ends at once (exit 2); the policy was taken before it ran
    assert threshold("status", "--url", "http://127.0.0.1:9") == collector.GEN0
