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


def frame_time(frame: dict[str, Any]) -> datetime | None:
    """When a frame happened: its event's occurredAt or its shell row's updatedAt."""
    from t3tui.model.wire import ts

    item = frame.get("item", {})
    if item.get("kind") == "event":
        return ts(item["event"].get("occurredAt"))
    if item.get("kind") == "thread.updated":
        return ts(item["thread"].get("updatedAt"))
    return None


def sweep(name: str, seconds: list[float], *, config: DetectorConfig | None = None):
    """Replay a live fixture in simulated time: before each view at T, apply the frames that
    happened at or before T. Yields (T, view)."""
    sup = Supervisor(config)
    frames = [fr for fr in load(name)["live"] if "mark" not in fr]
    i = 0
    for t in sorted(seconds):
        limit = at(t)
        while i < len(frames):
            when = frame_time(frames[i])
            if when is not None and when > limit:
                break
            feed(sup, [frames[i]])
            i += 1
        yield t, sup.view(limit)


def recorded(name: str, until: str) -> tuple[Supervisor, datetime]:
    """Replay a fixture recorded from the reference backend up to a mark; returns the
    supervisor and the wall-clock time of that mark."""
    sup = Supervisor()
    for frame in load(name)["recorded"]:
        if "mark" in frame:
            if frame["mark"] == until:
                return sup, datetime.fromisoformat(frame["at"])
            continue
        feed(sup, [frame])
    raise KeyError(f"{name} has no mark {until!r}")
