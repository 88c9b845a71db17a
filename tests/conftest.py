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


@pytest.fixture(autouse=True)
def acted_log(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Each test's own log of the user's actions (t3tui.policy.acted), never the machine's:
    headless commands append to it, and a `watch --act` it starts reads it."""
    path = tmp_path_factory.mktemp("acted") / "acted.jsonl"
    monkeypatch.setenv("T3TUI_ACTED_LOG", str(path))
    return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Captured output may hold what hostile-frame tests sent (a lone surrogate in a logged
    thread id). pytest-xdist carries reports to the controller as UTF-8 and dies on those, so
    they are escaped here; the app's own log handlers make them visible (DisplayFormatter)."""
    outcome = yield
    report = outcome.get_result()
    report.sections = [(name, text.encode("utf-8", "backslashreplace").decode("utf-8"))
                       for name, text in report.sections]
