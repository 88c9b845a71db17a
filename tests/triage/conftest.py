"""Recordings of the seed flows, made once per test session from the reference backend."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.triage.flows import LiveRun, record_seed000, record_seed004


def _run(coro: Coroutine[Any, Any, LiveRun]) -> LiveRun:
    """In a thread of its own: an async test may be the first to ask for the fixture."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


@pytest.fixture(scope="session")
def seed004(tmp_path_factory: pytest.TempPathFactory) -> LiveRun:
    """Seed 004 recorded live: settle the parent, 3 s check-in on the child, stuck flag."""
    path = tmp_path_factory.mktemp("rec") / "seed004.ndjson.gz"
    return _run(record_seed004(path))


@pytest.fixture(scope="session")
def seed000(tmp_path_factory: pytest.TempPathFactory) -> LiveRun:
    """Seed 000 recorded live: serialized wait-mode delegations, the serialized flag."""
    path = tmp_path_factory.mktemp("rec") / "seed000.ndjson.gz"
    return _run(record_seed000(path))
