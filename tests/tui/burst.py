"""Keys as a terminal delivers a burst: every key event queued at once, none handled between.

`pilot.press` waits for the app to go idle after each key, so work an action defers (a focus
change Textual applies "later") lands before the next key: it can never show a race that a
fast typist, a paste or a slow machine does. `burst` queues them all, as one read of the
terminal does, then waits until the app has handled them.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.keys import _character_to_key

NAMED = {"enter": "\r", "escape": "\x1b", "tab": "\t", "space": " "}


def _event(key: str) -> events.Key:
    """"s" or "/" as typed (the key's name and its character); "enter" and the like by name."""
    if len(key) == 1:
        return events.Key(key if key.isalnum() else _character_to_key(key), key)
    return events.Key(key, NAMED.get(key))


async def burst(pilot: Any, *keys: str) -> None:
    """Queue `keys` on the app in one go (see the module docstring), then wait for idle."""
    app = pilot.app
    for key in keys:
        event = _event(key)
        event.set_sender(app)
        app._driver.send_message(event)
    await pilot.pause()
    await pilot.pause()
