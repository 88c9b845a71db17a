"""When the policies evaluate again: on news, else once every EVALUATE_S (issue 25).

An evaluation (`Engine.tick`) reads every finding held (occurrences, the decision guards):
at every look of a busy stream (`watch --act`'s, the app's frames, up to 60 a second) it cost
more than the look. What can change a decision: a finding that appeared or cleared (what
`Engine.rows_changed` answers), the connection, the switch, a pause of the process (the
`state` a front end passes), and time alone (a finding held `after`): that one is judged
within EVALUATE_S. A finding's words moving on (its age) is not news. One rule for
`watch --act` (`headless/acting.py`) and the app (`tui/app/policies.py`).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final

EVALUATE_S: Final = 1.0


class Cadence:
    """Fed the news (`news`) and asked at each look (`due`); told what each evaluation was
    under (`evaluated`). Times are monotonic seconds."""

    def __init__(self, every: float = EVALUATE_S) -> None:
        self.every = every
        self._news = True  # something to judge since the last evaluation
        self._evaluated: float | None = None  # when the policies last evaluated
        self._state: Hashable = None  # what they were evaluated under

    def news(self, changed: bool) -> None:
        """`Engine.rows_changed`'s answer (or any other news): True makes the next look due."""
        if changed:
            self._news = True

    def due(self, state: Hashable, at: float) -> bool:
        """Evaluate now? `state`: what the decisions depend on besides the findings (the
        connection, synchronized, fresh facts, the switch)."""
        return self._news or self._evaluated is None or state != self._state \
            or at - self._evaluated >= self.every

    def evaluated(self, state: Hashable, at: float) -> None:
        """The policies evaluated at `at` under `state`."""
        self._news, self._evaluated, self._state = False, at, state

    def due_in(self, at: float) -> float:
        """Seconds from `at` until a look is due though nothing is new: a loop waits no
        longer than this, whatever woke it last."""
        if self._news or self._evaluated is None:
            return 0.0
        return max(0.0, self._evaluated + self.every - at)
