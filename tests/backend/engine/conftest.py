"""Fixtures for in-process engine tests: a started engine on a temporary data dir."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from t3tui.backend.engine import Engine
from tests.backend.engine.harness import open_engine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[Engine]:
    """One parallel `codex` instance, no faults, short drain."""
    async with open_engine(tmp_path) as started:
        yield started
