"""Load frame fixtures and feed them through the protocol decoders into a Supervisor."""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from typing import Any

from t3tui.model import DetectorConfig, Supervisor, SupervisorView
from t3tui.protocol import decode_shell_item, decode_thread_item
from tests.model.factory import at
from tests.model.timeline import FRAMES


@cache
def _load(name: str) -> str:
    return (FRAMES / f"{name}.json").read_text()


def load(name: str) -> dict[str, Any]:
    return json.loads(_load(name))


def feed(sup: Supervisor, frames: list[dict[str, Any]], until: str | None = None,
         start: str | None = None) -> None:
    """Apply frames (decoded by t3tui.protocol, as the client does), between two marks."""
    on = start is None
    for frame in frames:
        if "mark" in frame:
            if frame["mark"] == until:
                return
            if frame["mark"] == start:
                on = True
            continue
        if not on:
            continue
        if frame["stream"] == "shell":
            sup.apply_shell(decode_shell_item(frame["item"]))
        else:
            sup.apply_thread(frame["threadId"], decode_thread_item(frame["item"]))


def supervisor(name: str, *, fresh: bool = False, until: str | None = None,
               config: DetectorConfig | None = None) -> Supervisor:
    sup = Supervisor(config)
    doc = load(name)
    feed(sup, doc["fresh"] if fresh else doc["live"], until=until)
    return sup


def view_at(sup: Supervisor, seconds: float) -> SupervisorView:
    return sup.view(at(seconds))


def now(seconds: float) -> datetime:
    return at(seconds)
