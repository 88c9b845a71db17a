"""The action gates (which keys are enabled: the footer's keys, the palette), checked again
only when something they read changed.

Checking all the actions costs a frame's fixed share, and frames come 60 a second under load;
a gate reads only the screen, the line being typed, the replay, the filter, the selected row
(its facts, its connection, its flows in flight, its parent's forwards) and the view's
findings (a runaway below). `GateKey` is those, compared by identity first, so a frame in
which none of them moved checks nothing.
"""

from __future__ import annotations

from textual.css.query import NoMatches

from t3tui.model import SupervisorView
from t3tui.tui.app.keys import ACTIONS
from t3tui.tui.app.port import AppPort


class Gates:
    """The last gates and what they were checked from; `refresh` after each frame's view."""

    def __init__(self, app: AppPort) -> None:
        self.app = app
        self._key: tuple[object, ...] | None = None
        self._gates: tuple[bool | None, ...] = ()

    @property
    def shown(self) -> tuple[bool | None, ...]:
        """The gates the keys show now, one per action (`keys.ACTIONS`' order)."""
        return self._gates

    def refresh(self, view: SupervisorView) -> None:
        key = self._key_now(view)
        if key == self._key:
            return
        self._key = key
        gates = tuple(self.app.check_action(spec.action, ()) for spec in ACTIONS)
        if gates != self._gates:
            self._gates = gates
            self.app.refresh_bindings()

    def _key_now(self, view: SupervisorView) -> tuple[object, ...]:
        app = self.app
        row = app.current_row()
        row_id = row.id if row is not None else None
        statuses = tuple((kind, s.done) for kind, s in app.statuses.get(row_id, {}).items()) \
            if row_id is not None else ()
        parent = row.task.parent_thread_id if row is not None and row.task is not None else None
        forwards = app.source.supervisor.forwards(parent) if parent else None
        try:
            line_shown = not app.main_screen.query_one("#filter").has_class("-hidden")
        except NoMatches:
            line_shown = False
        return (app.screen, app.typing_gate("filter"), app.triage.replaying, app.source,
                app.row_filter, line_shown, row_id, row, app.conn_of(row_id), statuses,
                forwards, view.findings)
