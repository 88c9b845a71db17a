"""The action gates (which keys are enabled: the footer's keys, the palette), checked again
only when something they read changed.

Checking all the actions costs a frame's fixed share, and frames come 60 a second under load.
Every gate (`Actions.check_action`, `why_not`, the replay's and the typed line's gates) reads
the app only through `GateInputs`, gathered by `gate_inputs`; the cache's key is those same
inputs, so an input a gate reads cannot be missing from the key. Compared by identity first,
a frame in which none of them moved checks nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from textual.css.query import NoMatches

from t3tui.actions import tree_stoppable
from t3tui.client.state import Live, Stale, Syncing
from t3tui.model import SupervisorView, ThreadRow
from t3tui.tui.app.keys import ACTIONS
from t3tui.tui.app.port import AppPort


@dataclass(frozen=True)
class GateInputs:
    """Everything the gates read, and nothing else."""

    screen: object  # the screen on top
    on_main: bool  # it is the main screen
    line_keys: frozenset[str] | None  # while a line is edited, the actions its keys still run
    replaying: bool
    can_report: bool
    line_shown: bool  # the filter's line is open
    filter_active: bool
    row: ThreadRow | None  # the selected row: its facts
    connected: bool  # its connection can carry an action
    busy: frozenset[str]  # its actions in flight
    forwards: Mapping[str, Any] | None  # its parent's forwards
    stoppable_below: bool  # a tree stop of it has a run or a runaway to stop


class _Stoppable:
    """`tree_stoppable` of the selected row, walked once per view and row: the inputs are
    gathered every frame, and an idle subtree of 10,000 threads is a walk of ~10 ms."""

    def __init__(self) -> None:
        self.key: tuple[SupervisorView, str] | None = None
        self.answer = False

    def __call__(self, view: SupervisorView, thread_id: str) -> bool:
        if self.key is None or self.key[0] is not view or self.key[1] != thread_id:
            self.key, self.answer = (view, thread_id), tree_stoppable(view, thread_id)
        return self.answer


_stoppable = _Stoppable()  # a view is never changed once made: its identity is its content


def gate_inputs(app: AppPort) -> GateInputs:
    screen = app.screen
    row = app.current_row()
    busy: frozenset[str] = frozenset()
    forwards = None
    below = False
    if row is not None:
        busy = frozenset(kind for kind, s in app.statuses.get(row.id, {}).items() if not s.done)
        parent = row.task.parent_thread_id if row.task is not None else None
        forwards = app.source.supervisor.forwards(parent) if parent else None
        below = app.view is not None and _stoppable(app.view, row.id)
    try:
        line_shown = not app.main_screen.query_one("#filter").has_class("-hidden")
    except NoMatches:
        line_shown = False
    return GateInputs(
        screen=screen, on_main=screen is app.main_screen, line_keys=app.typing_keys(),
        replaying=app.triage.replaying, can_report=app.triage.can_report(),
        line_shown=line_shown, filter_active=app.row_filter.active, row=row,
        connected=isinstance(app.conn_of(row.id if row is not None else None),
                             Live | Stale | Syncing),
        busy=busy, forwards=forwards, stoppable_below=below)


class Gates:
    """The last gates and what they were checked from; `refresh` after each frame's view."""

    def __init__(self, app: AppPort) -> None:
        self.app = app
        self._inputs: GateInputs | None = None
        self._gates: tuple[bool | None, ...] = ()

    @property
    def shown(self) -> tuple[bool | None, ...]:
        """The gates the keys show now, one per action (`keys.ACTIONS`' order)."""
        return self._gates

    def refresh(self) -> None:
        inputs = gate_inputs(self.app)
        if inputs == self._inputs:
            return
        self._inputs = inputs
        gates = tuple(self.app.actions.check_action(spec.action, (), inputs)
                      for spec in ACTIONS)
        if gates != self._gates:
            self._gates = gates
            self.app.refresh_bindings()
