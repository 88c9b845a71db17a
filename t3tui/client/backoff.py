"""The reconnect schedule: 0, 1, 2, 4, 8 s, then keep retrying every 8 s."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_DELAYS: tuple[float, ...] = (0.0, 1.0, 2.0, 4.0, 8.0)


@dataclass(frozen=True)
class Backoff:
    """Delay before reconnect attempt `n` (1-based); the last delay repeats forever."""

    delays: Sequence[float] = DEFAULT_DELAYS

    def __post_init__(self) -> None:
        if not self.delays or any(d < 0 for d in self.delays):
            raise ValueError("backoff needs at least one delay, none negative")

    def delay(self, attempt: int) -> float:
        if attempt < 1:
            raise ValueError("attempts count from 1")
        return float(self.delays[min(attempt, len(self.delays)) - 1])

    @classmethod
    def fast(cls) -> Backoff:
        """A schedule for tests: same shape, milliseconds instead of seconds."""
        return cls(tuple(d / 100 for d in DEFAULT_DELAYS))
