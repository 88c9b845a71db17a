"""Running a decision: its policy's actions in order, through the one actions layer, each
confirmed from the stream as the app's are. The first step that does not come out ok ends the
run (an interrupt not confirmed is not followed by a forward); nothing is retried here: a
finding that persists is a new decision, under the guards and the rate limits.

A dry run goes through the same actions with a port that sends nothing (`DryPort`): every
command is kept as it would be sent, and reads (sessions, projections) still happen, so the
plan is the one a real run would start with.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from typing import Any

from t3tui import actions
from t3tui.actions import Clock, Outcome, Port, no_report
from t3tui.client.outcome import Accepted, CommandOutcome
from t3tui.client.settle_guard import SharedSession
from t3tui.model import CheckInVerdict, SupervisorView, ThreadRow
from t3tui.model.forwarding import forward_refusal, forward_text, unheard_answer, unheard_text
from t3tui.policy.journal import NOT_SENT, Decision, Step
from t3tui.policy.notify import notify, plan
from t3tui.policy.spec import Policy, format_duration

Records = Callable[[str], object]
# A dry run's forward whose parent's messages are not loaded (a dropped connection): a real
# run would load them and forward only if they do not carry the result yet (`actions.forward`)
FORWARD_UNCHECKED = ("would send, once the parent's messages show it was not forwarded "
                     "already")
AVAILABILITY = {"checkin": "checkin", "interrupt": "run_interrupt", "force-stop": "force_stop",
                "stop-tree": "stop_tree", "dispose": "dispose", "acknowledge": "acknowledge",
                "settle": "settle"}


def wire(command: Any) -> dict[str, Any]:
    return command.to_wire() if hasattr(command, "to_wire") else {"command": repr(command)}


class _Rows:
    """The model as a dry run sees it: read as is, never written (no interrupt recorded)."""

    def __init__(self, rows: Any) -> None:
        self._rows = rows

    def row(self, thread_id: str, now: datetime) -> ThreadRow | None:
        return self._rows.row(thread_id, now)

    def view(self, now: datetime) -> SupervisorView:
        return self._rows.view(now)

    def has_message(self, thread_id: str, message_id: str) -> bool:
        return False

    def thread_synchronized(self, thread_id: str) -> bool:
        return bool(self._rows.thread_synchronized(thread_id))

    def forwards(self, thread_id: str) -> dict[str, datetime | None]:
        return dict(self._rows.forwards(thread_id))

    def woken_runs(self, thread_id: str) -> dict[str, frozenset[str]]:
        return dict(self._rows.woken_runs(thread_id))

    def record_interrupt(self, thread_id: str, run_id: str, at: datetime) -> None:
        return None


class KeepingPort:
    """A port that keeps every command it sends (`sent`); with `send=False` (a dry run) it sends
    none: each is answered as accepted and never seen on the stream."""

    def __init__(self, port: Port, *, send: bool) -> None:
        self.port, self.send = port, send
        self.sent: list[dict[str, Any]] = []

    @property
    def supervisor(self) -> Any:
        return self.port.supervisor if self.send else _Rows(self.port.supervisor)

    async def dispatch(self, command: Any, timeout: float) -> CommandOutcome:
        self.sent.append(wire(command))
        if self.send:
            return await self.port.dispatch(command, timeout)
        return Accepted(None)

    async def wait_until(self, predicate: Callable[[], Any], timeout: float) -> Any:
        return await self.port.wait_until(predicate, timeout) if self.send else None

    def open_thread(self, thread_id: str) -> bool:
        return self.port.open_thread(thread_id) if self.send else False

    def close_thread(self, thread_id: str) -> None:
        if self.send:
            self.port.close_thread(thread_id)

    async def checkin(self, thread_id: str, *, text: str | None, expect: str | None,
                      timeout_s: float | None, clock: Clock,
                      queue_if_busy: bool = True) -> CheckInVerdict:
        if self.send:
            return await self.port.checkin(thread_id, text=text, expect=expect,
                                           timeout_s=timeout_s, clock=clock,
                                           queue_if_busy=queue_if_busy)
        self.sent.append({"type": "message.dispatch", "threadId": thread_id,
                          "text": text or "(the configured check-in text)"})
        return CheckInVerdict("busy", thread_id, "dry run: not sent")

    async def settle_risks(self, thread_id: str, descendants: Iterable[str]) -> list[SharedSession]:
        return await self.port.settle_risks(thread_id, descendants)

    async def live_sessions(self, thread_id: str) -> list[str]:
        return await self.port.live_sessions(thread_id)


def _forward_text(row: ThreadRow, unheard: tuple[str, str, str] | None) -> str | None:
    if forward_refusal(row) is None:
        return forward_text(row)
    if unheard is not None:
        return unheard_text(row, *unheard)
    return None


def stop_reason(policy: Policy) -> str:
    """What a policy's stop says on the wire (T3 shows and logs it): not "user interrupt"."""
    return f"t3tui: policy {policy.number} ({policy.when} held {format_duration(policy.after_s)})"


async def _one(action: str, port: KeepingPort, thread_id: str, first: ThreadRow,
               unheard: tuple[str, str, str] | None, *, clock: Clock,
               timeout: float, reason: str) -> Outcome:
    row = port.supervisor.row(thread_id, clock())
    if row is None:
        return Outcome("unavailable", "the thread is no longer shown")
    dry = not port.send
    name = AVAILABILITY.get(action)
    # a tree stop applies when it has something to stop (`I`'s gate, the same predicate its
    # targets are chosen by): a run of the tree, or a runaway's forced stop
    below = action == "stop-tree" and actions.tree_stoppable(port.supervisor.view(clock()),
                                                             thread_id)
    why = actions.unavailable(name, row, connected=True, stoppable_below=below) if name else None
    if why is not None:
        return Outcome("unavailable", why)
    common = {"report": no_report, "clock": clock, "timeout": timeout}
    # the active run; for a forced stop of a runaway, the run its provider outlived
    run_id = actions.stoppable_run(row) or actions.stoppable_run(first) or ""
    if action == "interrupt":
        return await actions.interrupt(port, thread_id, run_id, reason=reason, **common)
    if action == "force-stop":
        return await actions.force_stop(port, thread_id, run_id, reason=reason, **common)
    if action == "stop-tree":
        targets = actions.stop_targets(port.supervisor.view(clock()), thread_id)
        if dry:  # each target's interrupt, as the tree stop would send them one by one
            for target in targets:  # a runaway's is its forced stop
                flow = actions.force_stop if target.runaway else actions.interrupt
                await flow(port, target.thread_id, target.run_id, reason=reason, **common)
            return Outcome("not_confirmed", f"would stop {len(targets)} run(s)")
        return await actions.stop_tree(port, targets, root=thread_id, reason=reason, **common)
    if action == "forward":
        text = _forward_text(row, unheard) or _forward_text(first, unheard)
        if text is None:
            return Outcome("unavailable", forward_refusal(row) or "nothing to forward")
        child = row if row.task else first
        parent_id = child.task.parent_thread_id if child.task is not None else None
        if dry and parent_id and not port.supervisor.thread_synchronized(parent_id):
            # the once-check reads a stream a dry run does not wait for: the plan says it
            outcome = await actions.forward(port, child, text=text, again=True, **common)
            return replace(outcome, extra={**outcome.extra, "plan": FORWARD_UNCHECKED})
        return await actions.forward(port, child, text=text, **common)
    if action == "checkin":
        return await actions.checkin(port, thread_id, report=no_report, clock=clock)
    if action in ("dispose", "acknowledge"):
        return await actions.settle_delivery(port, row, action, **common)
    if action == "settle":
        check = await actions.check_settle(port, port.supervisor.view(clock()), thread_id)
        if check.unsettled or check.risks:
            return Outcome("unavailable", "not safe to settle: unsettled children or a shared "
                           "provider session (settle it by hand)")
        return await actions.settle(port, thread_id, **common)
    return Outcome("unavailable", f"unknown action {action}")


async def execute(port: Port, decision: Decision, policy: Policy, *, clock: Clock,
                  timeout: float, records: Records | None = None) -> tuple[Step, ...]:
    """Run (or, for a dry-run decision, plan) `policy.do` on the decision's thread."""
    dry = decision.verdict == "dry-run"
    first = port.supervisor.row(decision.thread_id, clock())
    if first is None:
        return (Step(policy.do[0], "unavailable", "the thread is no longer shown"),)
    # the provider record's answer is read now: once the run is interrupted the finding that
    # points at it is gone
    lookup = records or getattr(port.supervisor, "provider_record", None)
    unheard = unheard_answer(first, {first.id: lookup(first.id)}) if lookup else None
    steps: list[Step] = []
    for action in policy.do:
        if action == "notify":
            assert policy.notify is not None
            if dry:
                steps.append(Step("notify", "dry-run", "would notify", (plan(policy.notify),)))
                continue
            step = await notify(policy.notify, decision.record())
        else:
            keeping = KeepingPort(port, send=not dry)
            try:
                outcome = await _one(action, keeping, decision.thread_id, first, unheard,
                                     clock=clock, timeout=timeout, reason=stop_reason(policy))
            except Exception as exc:  # a read that lost its socket: journaled, never raised
                if not keeping.sent and not steps:
                    # nothing went out: the finding stays open (`Journal.finish`), the
                    # policy acts once the connection is back, under the rate limits
                    steps.append(Step(action, NOT_SENT, f"nothing sent: {type(exc).__name__}: "
                                      f"{exc}; tried again once the connection is back"))
                    break
                outcome = Outcome("unknown", f"outcome unknown: {type(exc).__name__}: {exc}")
            planned = dry and (outcome.kind != "unavailable" or bool(keeping.sent))
            kind = "dry-run" if planned else outcome.kind
            text = (outcome.extra.get("plan", "would send") if dry and keeping.sent
                    else outcome.text)
            step = Step(action, kind, text, tuple(keeping.sent))
        steps.append(step)
        if step.outcome not in ("ok", "dry-run"):
            break
    return tuple(steps)
