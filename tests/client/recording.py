"""A Supervisor that remembers what the session handed it, to prove dedupe and completeness."""

from __future__ import annotations

from typing import Any

from t3tui.client.items import is_snapshot
from t3tui.model import Supervisor
from t3tui.model.wire import as_wire


class Recording(Supervisor):
    """A Supervisor that remembers every item the session handed it."""

    def __init__(self) -> None:
        super().__init__()
        self.handed: list[tuple[str | None, int]] = []  # (stream, sequence) of non-snapshots
        self.since_snapshot: dict[str | None, tuple[int, list[int]]] = {}

    def _record(self, stream: str | None, item: Any) -> None:
        w = as_wire(item, "item")  # the feed hands wire dicts; typed items work too
        if is_snapshot(w):
            snap = w["snapshot"]["snapshotSequence"] if stream is None else w["snapshotSequence"]
            self.since_snapshot[stream] = (snap, [])
        elif isinstance(w.get("sequence"), int):
            self.handed.append((stream, w["sequence"]))
            self.since_snapshot[stream][1].append(w["sequence"])

    def apply_shell(self, item: Any) -> None:
        self._record(None, item)
        super().apply_shell(item)

    def apply_thread(self, thread_id: str, item: Any) -> None:
        self._record(thread_id, item)
        super().apply_thread(thread_id, item)
