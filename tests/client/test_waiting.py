"""Waiting on a stream with a deadline (`t3tui.client.waiting`): a cancelled wait ends."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from t3tui.client.waiting import wait_for_update


async def test_a_wait_cancelled_in_the_same_turn_as_an_update_is_cancelled() -> None:
    """On Python 3.11 `asyncio.wait_for(wake.wait(), tick)` loses a cancellation that comes in
    the same turn of the loop as the update that sets `wake` (CPython gh-86296): a check-in or
    settle the user gave up on would wait out its whole timeout instead."""
    listeners: list[Callable[[Any], None]] = []

    def on_update(callback: Callable[[Any], None]) -> Callable[[], None]:
        listeners.append(callback)
        return lambda: listeners.remove(callback)

    def update() -> None:
        for listener in list(listeners):
            listener(object())

    loop = asyncio.get_running_loop()
    waiting = asyncio.create_task(wait_for_update(on_update, lambda: None, 60, tick=5))
    # a busy loop across both moments: the update and the cancel land in the same turn
    loop.call_later(0.1, time.sleep, 0.4)
    loop.call_later(0.2, update)
    loop.call_later(0.3, waiting.cancel)
    try:
        done, _ = await asyncio.wait({waiting}, timeout=5)
        assert done, "the cancelled wait went on"
        assert waiting.cancelled()
    finally:
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
    assert listeners == []


# `asyncio.wait_for` kept only where a lost cancellation cannot stall anything: the kill of an
# agent's process group finishes on purpose even when its caller is cancelled, and a tool call
# checks for the interrupt itself after it returns.
WAIT_FOR_KEPT = {"t3tui/backend/provider/process.py": 1, "t3tui/backend/provider/agent.py": 1}


def test_deadlines_are_asyncio_timeout_not_wait_for() -> None:
    """Every deadline in t3tui is `async with asyncio.timeout(t)`, which on 3.11 never loses
    the caller's cancellation: `asyncio.wait_for` does when what it waits for finishes in the
    same turn as the cancel (gh-86296), and `watch --duration` once ran on for ever that way.
    A ping loop, a reconnect back-off or a wait for synchronization is just as exposed."""
    root = Path(__file__).resolve().parents[2]
    found = {}
    for path in sorted((root / "t3tui").rglob("*.py")):
        count = sum(1 for line in path.read_text().splitlines()
                    if "asyncio.wait_for(" in line and not line.lstrip().startswith(("#", "Never")))
        if count:
            found[path.relative_to(root).as_posix()] = count
    assert found == WAIT_FOR_KEPT
