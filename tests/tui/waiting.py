"""Bounded waits for Pilot tests: poll a condition until it holds or the deadline passes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from t3tui.backend.testing import wait_until


async def until(predicate: Callable[[], Any], timeout: float = 15.0, what: str = "") -> Any:
    """The predicate's first truthy value; `TimeoutError` naming `what` after `timeout` s."""
    return await wait_until(predicate, timeout=timeout, interval=0.02, what=what)
