"""Fixtures shared by the whole suite. Keep this file small: one documented fixture each.

Helpers that are not fixtures live in `t3tui.backend.testing` (`running_backend`,
`BackendProcess`, `wait_until`) so that benchmarks can use them too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from t3tui.backend.testing import RunningBackend, running_backend


@pytest.fixture
async def backend() -> AsyncIterator[RunningBackend]:
    """A fresh reference backend on `127.0.0.1:0`: no scenario, parallel dispatch, no faults,
    a temporary data directory. Use `running_backend(...)` directly for other settings."""
    async with running_backend() as started:
        yield started
