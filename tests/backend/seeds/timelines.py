"""The seed timelines, read from stored events (`{sequence, event}` wire dicts).

Pure functions, so over-the-socket tests can feed them thread-stream `event` items too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from t3tui.backend.engine import client_request_id_of


@dataclass
class TaskTimeline:
    """When one delegated task's row appeared, its wait returned, and it finished."""

    task_id: str
    created: int | None = None  # sequence of the first `subagent.updated`
    wait_returned: int | None = None  # sequence of the settled_only -> always flip
    finished: int | None = None  # sequence of the terminal `subagent.updated`

    @property
    def client_request_id(self) -> str | None:
        return client_request_id_of(self.task_id)


def task_timelines(items: Iterable[dict[str, Any]], parent_id: str) -> dict[str, TaskTimeline]:
    """Per clientRequestId, from the parent's `subagent.updated` events in sequence order."""
    found: dict[str, TaskTimeline] = {}
    wake: dict[str, str] = {}
    for item in sorted(items, key=lambda i: i["sequence"]):
        event = item["event"]
        if event["threadId"] != parent_id or event["type"] != "subagent.updated":
            continue
        task = event["payload"]
        line = found.setdefault(task["id"], TaskTimeline(task["id"]))
        if line.created is None:
            line.created = item["sequence"]
        previous = wake.get(task["id"])
        if previous == "settled_only" and task.get("completionWake") == "always":
            line.wait_returned = line.wait_returned or item["sequence"]
        wake[task["id"]] = task.get("completionWake")
        if task["status"] in ("completed", "failed", "cancelled", "interrupted"):
            line.finished = line.finished or item["sequence"]
    return {line.client_request_id or tid: line for tid, line in found.items()}


def after_sequence(items: Iterable[dict[str, Any]], thread_id: str, sequence: int
                   ) -> list[dict[str, Any]]:
    """A thread's events after `sequence`, as `{type, payload}` dicts."""
    return [i["event"] for i in sorted(items, key=lambda i: i["sequence"])
            if i["sequence"] > sequence and i["event"]["threadId"] == thread_id]
