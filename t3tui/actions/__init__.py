"""The actions layer: every action on a thread written once, for the app, the CLI and the
policies. No Textual, no printing: callers ask, confirm with their user, call, and show.

API note (read this before calling an action)

- A `Port` (`port.py`) is what an action needs from whoever holds the connection: the model
  (`port.supervisor`: `row`, `view`, `has_message`, `record_interrupt`), `dispatch(command,
  timeout)`, `wait_until(predicate, timeout)`, `open_thread`/`close_thread`, `checkin`,
  `settle_risks`, `live_sessions`. The app's sources (`LiveSource`, `MultiSource`) are ports;
  headless code wraps a session: `SessionPort(session, supervisor)` (`OnThread.port`).
- May it run, and if not why: `unavailable(action, row, connected=, busy_actions=)` -> the
  human reason or None (`availability.py`; action names as the app's keys: "settle",
  "checkin", "interrupt", "answer", "message", "stop_tree", "forward", "dispose",
  "acknowledge"; "run_interrupt" is `run.interrupt` alone and "force_stop" the forced stop
  alone, while "interrupt", the app's key, is either: an active run, or a runaway provider
  whose run ended, `runaway_run`, for which only the forced stop applies).
- What it acts on (`targets.py`): `interrupt_choices(view, row, force=)` (the blocking child,
  the run, the forced stop: least destructive first; a runaway gets the forced stop alone),
  `stoppable_run(row)` (the active run, else a runaway's), `blocking_children`, `parent_of`,
  `stop_targets(view, root_id)` (deepest first, then its runaways for the forced stop),
  `tree_stoppable(view, root_id)` (whether it has any: `I`'s gate and a policy's).
- The flows are `async def action(port, ..., *, report, clock, timeout, new_id) -> Outcome`:
  `interrupt(port, thread_id, run_id)`, `force_stop(port, thread_id, run_id)`,
  `stop_tree(port, targets, root=, on_step=)`; `settle(port, thread_id)` after
  `check_settle(port, view, thread_id)` (the unsettled children, and those sharing a provider
  session the settle would detach), `settle_children_first(port, thread_id, children)`;
  `settle_delivery(port, child_row, "dispose" | "acknowledge")`; `send_message(port,
  thread_id, text)`, `forward(port, child_row, text=None, again=False)` (to its parent, once:
  refused when `parent_forwards(port, parent_id)` shows it forwarded already),
  `respond(port, thread_id, request_id, decision= | answers=)`; `checkin(port, thread_id,
  text=, expect=, timeout_s=, queue_if_busy=)` (no `timeout`: its deadline is `timeout_s`). `report(phase, text)` hears progress (phase pending /
  ok / failed / unknown; `no_report` ignores it). They send, then wait for the stream to show
  the effect.
- `Outcome` (`outcome.py`): `kind` is "ok" (the stream showed it; `row` is the row it showed),
  "refused" (the server's own words: `message`, `detail`), "not_confirmed" (accepted, not
  seen within `timeout`), "unknown" (no answer: it may have been applied; `command` names
  it) or "unavailable" (t3tui sent nothing; `text` says why). `text` is the one-line summary;
  `value` holds what an action adds (a tree stop's `StopStep`s, a check-in's verdict).
  An action never raises for what the server answered; a read that loses its socket may
  raise `ClientError`.

A new action goes here, once: its availability, its target choice and its flow; the front
ends only ask, confirm and show.
"""

from t3tui.actions.availability import NEEDS_ROW, NEEDS_SERVER, runaway_refusal, unavailable
from t3tui.actions.interrupt import (
    FORCE_REASON,
    INTERRUPT_REASON,
    StopStep,
    force_stop,
    interrupt,
    stop_tree,
)
from t3tui.actions.messages import (
    checkin,
    forward,
    is_busy,
    parent_forwards,
    respond,
    send_message,
)
from t3tui.actions.outcome import Outcome, send_and_confirm
from t3tui.actions.port import Clock, IdFactory, Port, Report, SessionPort, no_report
from t3tui.actions.settle import (
    DELIVERY_STATE,
    SettleCheck,
    check_settle,
    settle,
    settle_children_first,
    settle_delivery,
)
from t3tui.actions.targets import (
    RUNAWAY_CONSEQUENCE,
    InterruptChoice,
    StopTarget,
    blocking_children,
    in_tree_stop,
    interrupt_choices,
    parent_of,
    runaway_run,
    stop_targets,
    stoppable_run,
    tree_stoppable,
)

__all__ = [
    "DELIVERY_STATE",
    "FORCE_REASON",
    "INTERRUPT_REASON",
    "NEEDS_ROW",
    "NEEDS_SERVER",
    "RUNAWAY_CONSEQUENCE",
    "Clock",
    "IdFactory",
    "InterruptChoice",
    "Outcome",
    "Port",
    "Report",
    "SessionPort",
    "SettleCheck",
    "StopStep",
    "StopTarget",
    "blocking_children",
    "check_settle",
    "checkin",
    "force_stop",
    "forward",
    "in_tree_stop",
    "interrupt",
    "interrupt_choices",
    "is_busy",
    "no_report",
    "parent_forwards",
    "parent_of",
    "respond",
    "runaway_refusal",
    "runaway_run",
    "send_and_confirm",
    "send_message",
    "settle",
    "settle_children_first",
    "settle_delivery",
    "stop_targets",
    "stop_tree",
    "stoppable_run",
    "tree_stoppable",
    "unavailable",
]
