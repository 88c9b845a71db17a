"""The supervisor: a pure reducer from shell/thread stream items to rows and findings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from t3tui.model.config import DetectorConfig
from t3tui.model.rows import SupervisorView, ThreadRow


class Supervisor:
    """Keeps the thread tree and derives states and findings (see docs/ARCHITECTURE.md)."""

    def __init__(self, config: DetectorConfig | None = None) -> None:
        self.config = config or DetectorConfig()

    def apply_shell(self, item: Any) -> None:
        raise NotImplementedError

    def apply_thread(self, thread_id: str, item: Any) -> None:
        raise NotImplementedError

    @property
    def cursor_shell(self) -> int | None:
        raise NotImplementedError

    def cursor_thread(self, thread_id: str) -> int | None:
        raise NotImplementedError

    def threads_of_interest(self) -> set[str]:
        raise NotImplementedError

    def take_dirty(self) -> set[str]:
        raise NotImplementedError

    def row(self, thread_id: str, now: datetime) -> ThreadRow | None:
        raise NotImplementedError

    def view(self, now: datetime) -> SupervisorView:
        raise NotImplementedError
