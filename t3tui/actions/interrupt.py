"""Stopping runs: interrupt one run, force-stop one run, stop a whole tree.

Levels of delegation.md §9.1: `interrupt` sends `run.interrupt` (of the row's run, of the child
a hung wait is blocked on, or of the parent: `targets.py` chooses); `force_stop` detaches the
thread's provider sessions (level 3, for a run whose interrupt did not land, or a runaway
provider: its run ended interrupted, its turn runs on, T3 #5587); `stop_tree`
interrupts a subtree deepest first, then the runs its stopped children's results start
(`restarts.py`). Every accepted interrupt is recorded with `record_interrupt`, so a stop of
ours that never lands is flagged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from t3tui.actions.outcome import Outcome, send_and_confirm
from t3tui.actions.port import Clock, IdFactory, Port, Report
from t3tui.actions.restarts import stop_restarts
from t3tui.actions.targets import StopTarget, runaway_run
from t3tui.client.errors import ClientError, describe
from t3tui.client.outcome import Accepted, Rejected, new_command_id
from t3tui.model import ThreadRow
from t3tui.protocol.commands import ProviderSessionDetach, RunInterrupt

INTERRUPT_REASON = "t3tui: user interrupt"
FORCE_REASON = "t3tui: force stop (the run did not stop on interrupt)"
REFUSED_WAIT_S = 2.0  # a refused interrupt: how long the stream may take to show it ended


def _ended(port: Port, thread_id: str, run_id: str, clock: Clock) -> ThreadRow | None:
    """The thread's row once `run_id` is no longer its active run."""
    row = port.supervisor.row(thread_id, clock())
    return row if row is not None and row.active_run_id != run_id else None


def _wound_down(port: Port, thread_id: str, run_id: str, clock: Clock) -> ThreadRow | None:
    """The thread's row once the provider that outlived `run_id` no longer runs (the
    `runaway_provider` finding cleared: its turn ended, its provider thread went idle)."""
    row = port.supervisor.row(thread_id, clock())
    return row if row is not None and runaway_run(row) != run_id else None


def _status(row: ThreadRow) -> str:
    return row.run_status or "ended"


async def interrupt(port: Port, thread_id: str, run_id: str, *, report: Report, clock: Clock,
                    timeout: float, new_id: IdFactory = new_command_id,
                    reason: str = INTERRUPT_REASON) -> Outcome:
    """`run.interrupt` of `run_id`; ok once the stream shows it is no longer active. `reason`
    goes on the wire (T3 shows and logs it): who stopped the run, a person or a policy."""
    command = RunInterrupt(command_id=new_id(), thread_id=thread_id, run_id=run_id,
                           reason=reason)
    return await send_and_confirm(
        port, command, report=report, timeout=timeout,
        confirmed=lambda: _ended(port, thread_id, run_id, clock),
        on_accepted=lambda: port.supervisor.record_interrupt(thread_id, run_id, clock()),
        doing=f"Stopping run {run_id}",
        done=lambda row: f"stopped: run {run_id} ended ({_status(row)})",
        not_done=(
            f"run {run_id} was still active after {timeout:g}s: the provider may have nothing "
            "left to interrupt (a lost turn); a forced stop may be needed"
        ),
    )


async def force_stop(port: Port, thread_id: str, run_id: str, *, report: Report, clock: Clock,
                     timeout: float, new_id: IdFactory = new_command_id,
                     reason: str = FORCE_REASON) -> Outcome:
    """Level 3 (delegation.md §9.1): detach the thread's live provider sessions, one at a time,
    until the stream shows the run ended; this ends a run that no longer hears from its
    provider (the seed 004 hang). On a runaway (`run_id` ended interrupted, its provider
    runs on: T3 #5587) it ends that provider's turn: confirmed once the finding clears.
    Other threads sharing a detached session lose it too. `value`: the outcome of each
    detach sent; `extra["session"]`: the one that ended it; `extra["runaway"]`: True when
    it was a runaway's."""
    row = port.supervisor.row(thread_id, clock())
    runaway = row is not None and row.active_run_id != run_id and runaway_run(row) == run_id
    if runaway:
        def confirmed() -> ThreadRow | None:
            return _wound_down(port, thread_id, run_id, clock)
        done = f"force-stopped: the provider that ran on after run {run_id} has stopped"
        not_done = (f"session detached, but the provider of run {run_id} still ran after "
                    f"{timeout:g}s")
    else:
        def confirmed() -> ThreadRow | None:
            return _ended(port, thread_id, run_id, clock)
        done = ""
        not_done = f"session detached, but run {run_id} was still active after {timeout:g}s"
    report("pending", "Finding the thread's provider sessions…")
    sessions = await port.live_sessions(thread_id)
    if not sessions:
        why = "no live provider session to detach; nothing more t3tui can do here"
        report("failed", why)
        return Outcome("unavailable", why, value=[])
    steps: list[Outcome] = []
    for session_id in sessions:
        command = ProviderSessionDetach(command_id=new_id(), thread_id=thread_id,
                                        provider_session_id=session_id, reason=reason)
        step = await send_and_confirm(
            port, command, report=report, timeout=timeout,
            confirmed=confirmed,
            doing=f"Detaching provider session {session_id}",
            done=lambda row: done or f"force-stopped: run {run_id} ended ({_status(row)})",
            not_done=not_done,
        )
        steps.append(step)
        if step.kind in ("ok", "unknown"):  # done, or the socket is gone: stop here
            return Outcome(step.kind, step.text, row=step.row, message=step.message,
                           command=step.command, value=steps,
                           extra={"session": session_id, "runaway": runaway})
    last = steps[-1]
    return Outcome(last.kind, last.text, message=last.message, detail=last.detail,
                   command=last.command, value=steps, extra={"runaway": runaway})


StepKind = Literal["ended_before", "stopped", "ended", "forced", "refused", "not_stopped",
                   "skipped"]


@dataclass(frozen=True)
class StopStep:
    """What became of one target of a tree stop: `ended_before` (it ended before its turn),
    `stopped` (our interrupt, confirmed), `ended` (refused, but the stream shows it ended on
    its own), `forced` (a runaway's forced stop, confirmed), `refused` (the server's words in
    `message`, `detail`), `not_stopped` (accepted, still active after the timeout), `skipped`
    (t3tui sent nothing: `message` says why)."""

    target: StopTarget
    kind: StepKind
    row: ThreadRow | None = None
    message: str | None = None
    detail: str | None = None

    @property
    def stopped(self) -> bool:
        return self.kind in ("ended_before", "stopped", "ended", "forced")


async def stop_tree(port: Port, targets: list[StopTarget], *, root: str, report: Report,
                    clock: Clock, timeout: float, new_id: IdFactory = new_command_id,
                    on_step: Callable[[StopStep], None] | None = None,
                    reason: str = INTERRUPT_REASON) -> Outcome:
    """Interrupt each target in order (deepest first: `targets.stop_targets(view, root)`), each
    confirmed from the stream before the next, then force-stop each runaway target
    (`_stop_runaway`); then, for `timeout` seconds at most, stop each run of the tree that the
    stopped children's results start (`restarts.stop_restarts`: a parent woken after the walk
    passed it). `on_step` hears each target's end, the last report sums up what stopped and
    what did not. `value`: the `StopStep`s. An unknown outcome stops it (the socket is gone)."""
    steps: list[StopStep] = []

    def step(s: StopStep) -> None:
        steps.append(s)
        if on_step is not None:
            on_step(s)

    for n, target in enumerate(targets, 1):
        if target.runaway:
            report("pending", f"Force-stopping {n}/{len(targets)}: {target.title} (its "
                              f"provider runs on after run {target.run_id})…")
            forced = await _stop_runaway(port, target, targets, report=report, clock=clock,
                                         timeout=timeout, new_id=new_id, reason=reason)
            if isinstance(forced, str):
                return _lost(steps, targets, target, forced, report)
            step(forced)
            continue
        report("pending", f"Stopping {n}/{len(targets)}: {target.title} (run {target.run_id})…")
        row = port.supervisor.row(target.thread_id, clock())
        if row is None or row.active_run_id is None:
            step(StopStep(target, "ended_before", row))  # a parent whose wait returned
            continue
        if row.active_run_id != target.run_id:
            # its run ended and a new one began since it was chosen (a parent that the
            # stopped children's results started again): that run is what runs in the tree
            target = replace(target, run_id=row.active_run_id)
        done = await _stop_run(port, target, clock=clock, timeout=timeout, new_id=new_id,
                               reason=reason)
        if isinstance(done, str):
            return _lost(steps, targets, target, done, report)
        step(done)

    async def again(target: StopTarget) -> str | None:
        report("pending", f"{target.title} started again on its stopped children's results "
                          f"(run {target.run_id}): stopping it…")
        done = await _stop_run(port, target, clock=clock, timeout=timeout, new_id=new_id,
                               reason=reason)
        if isinstance(done, str):
            return f"{target.title}: {done}"
        step(done)
        return None

    unsettled = await stop_restarts(port, root, [s.target for s in steps if s.stopped],
                                    clock=clock, window=timeout, stop=again)
    if isinstance(unsettled, str):
        return _lost(steps, targets, None, unsettled, report)
    total = len(targets) + sum(1 for s in steps if s.target.restarted)
    stopped = [_named(s) for s in steps if s.stopped]
    missed = [f"{_named(s)} ({_why(s, timeout)})" for s in steps if not s.stopped]
    summary = f"stopped {len(stopped)} of {total}"
    late = "".join(f"; the result of {child} had not reached {parent} after {timeout:g}s: "
                   f"it may start {parent} again" for child, parent in unsettled)
    if missed:
        text = (f"{summary}; still running: {'; '.join(missed)}. A stop that does not land "
                f"needs a forced stop of that thread{late}")
        report("failed", text)
        return Outcome("not_confirmed", text, command="run.interrupt", value=steps,
                       extra={"unsettled": unsettled})
    text = f"{summary}: {', '.join(stopped)}{late}"
    report("ok", text)
    return Outcome("ok", text, value=steps, extra={"unsettled": unsettled})


async def _stop_run(port: Port, target: StopTarget, *, clock: Clock, timeout: float,
                    new_id: IdFactory, reason: str) -> StopStep | str:
    """`run.interrupt` of one target's run, confirmed from the stream: its step, or why the
    outcome is unknown (the socket is gone)."""
    command = RunInterrupt(command_id=new_id(), thread_id=target.thread_id,
                           run_id=target.run_id, reason=reason)
    try:
        answer = await port.dispatch(command, timeout)
    except ClientError as exc:
        return str(exc) or describe(exc)
    if isinstance(answer, Accepted):
        port.supervisor.record_interrupt(target.thread_id, target.run_id, clock())
    elif not isinstance(answer, Rejected):
        return answer.reason

    def ended() -> ThreadRow | bool | None:
        now_row = port.supervisor.row(target.thread_id, clock())
        if now_row is None:
            return True
        return now_row if now_row.active_run_id != target.run_id else None

    wait = timeout if isinstance(answer, Accepted) else min(timeout, REFUSED_WAIT_S)
    shown = await port.wait_until(ended, wait)
    seen = shown if isinstance(shown, ThreadRow) else None
    if isinstance(answer, Accepted):
        return StopStep(target, "stopped" if shown else "not_stopped", seen)
    if shown:
        return StopStep(target, "ended", seen)
    return StopStep(target, "refused", None, answer.message, answer.detail)


def _named(step: StopStep) -> str:
    if step.kind == "forced":
        return f"{step.target.title} (forced stop: its provider ran on)"
    if step.target.restarted:
        return (f"{step.target.title} (started again on its stopped children's results: "
                f"run {step.target.run_id})")
    return step.target.title


def _why(step: StopStep, timeout: float) -> str:
    if step.kind == "refused":
        return f"refused: {step.message}"
    if step.kind == "skipped":
        return f"not sent: {step.message}"
    if step.target.runaway:
        return f"its provider still ran after {timeout:g}s"
    return f"still active after {timeout:g}s"


async def _stop_runaway(port: Port, target: StopTarget, targets: list[StopTarget], *,
                        report: Report, clock: Clock, timeout: float, new_id: IdFactory,
                        reason: str) -> StopStep | str:
    """A runaway of the tree (its run ended, its provider runs on): the forced stop, unless its
    provider session is also a thread's that still runs (an ancestor, or a run of the tree that
    did not stop): detaching it would take that thread's session too, so it is skipped and the
    step says so. The step, or why the outcome is unknown (the socket is gone)."""
    row = port.supervisor.row(target.thread_id, clock())
    if row is None or runaway_run(row) != target.run_id:
        return StopStep(target, "ended_before", row)  # its provider wound down on its own
    try:
        mine = set(await port.live_sessions(target.thread_id))
        for other in _still_running(port, target, targets, clock):
            if mine & set(await port.live_sessions(other.id)):
                return StopStep(target, "skipped", row, message=(
                    f"its provider session is shared with “{other.title or other.id}”, which "
                    "still runs: a forced stop would take that thread's session too"))
    except ClientError as exc:
        return str(exc) or describe(exc)
    forced = await force_stop(  # its phases are this walk's progress, not its end
        port, target.thread_id, target.run_id, report=lambda _phase, text: report("pending", text),
        clock=clock, timeout=timeout, new_id=new_id,
        reason=FORCE_REASON if reason == INTERRUPT_REASON else reason)
    if forced.kind == "unknown":
        return forced.message or forced.text
    if forced.kind == "ok":
        return StopStep(target, "forced", forced.row)
    if forced.kind == "refused":
        return StopStep(target, "refused", None, forced.message, forced.detail)
    if forced.kind == "unavailable":
        return StopStep(target, "skipped", row, message=forced.text)
    return StopStep(target, "not_stopped", row)


def _still_running(port: Port, target: StopTarget, targets: list[StopTarget],
                   clock: Clock) -> list[ThreadRow]:
    """The threads with an active run now among `target`'s ancestors and the tree's runs."""
    ids = [t.thread_id for t in targets if not t.runaway and t.thread_id != target.thread_id]
    row, seen = port.supervisor.row(target.thread_id, clock()), {target.thread_id}
    while row is not None and row.parent_id and row.parent_id not in seen:
        seen.add(row.parent_id)
        ids.append(row.parent_id)
        row = port.supervisor.row(row.parent_id, clock())
    rows = [port.supervisor.row(i, clock()) for i in dict.fromkeys(ids)]
    return [r for r in rows if r is not None and r.active_run_id is not None]


def _lost(steps: list[StopStep], targets: list[StopTarget], at: StopTarget | None, reason: str,
          report: Report) -> Outcome:
    done = sum(1 for s in steps if s.stopped)
    where = f" at {at.title}" if at is not None else ""
    text = f"outcome unknown{where}: {reason}; stopped {done} of {len(targets)}"
    report("unknown", text)
    return Outcome("unknown", text, message=reason, command="run.interrupt", value=steps)
