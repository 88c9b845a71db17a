"""Flows of the second-wave actions (no Textual): stop a subtree, settle a delivery.

Like `flows.py`, each sends its commands, reads the effect back from the stream and reports
through `report(phase, text)`; forwarding a result is `flows.send_message` with the text
`model.forwarding.forward_text` made (the confirmation shows exactly that text).
"""

from __future__ import annotations

from dataclasses import dataclass

from t3tui.client.errors import ClientError
from t3tui.client.outcome import Accepted, Rejected, new_command_id
from t3tui.model import ThreadRow
from t3tui.protocol.commands import (
    DelegatedTaskCompletionDeliveryAcknowledge,
    DelegatedTaskCompletionDeliveryDispose,
    RunInterrupt,
)
from t3tui.tui.flows import INTERRUPT_REASON, IdFactory, Report, command_flow
from t3tui.tui.source import Clock, Source


@dataclass(frozen=True)
class StopTarget:
    thread_id: str
    run_id: str
    title: str


async def stop_tree(source: Source, targets: list[StopTarget], *, report: Report, clock: Clock,
                    timeout: float, new_id: IdFactory = new_command_id) -> bool:
    """Interrupt each target in order (deepest first), each confirmed from the stream before
    the next; the last report sums up what stopped and what did not."""
    stopped: list[str] = []
    missed: list[str] = []

    def ended(target: StopTarget) -> ThreadRow | None:
        row = source.supervisor.row(target.thread_id, clock())
        return row if row is None or row.active_run_id != target.run_id else None

    for n, target in enumerate(targets, 1):
        report("pending", f"Stopping {n}/{len(targets)}: {target.title} (run {target.run_id})…")
        if ended(target) is not None:
            stopped.append(target.title)  # ended on its own (a parent whose wait returned)
            continue
        command = RunInterrupt(command_id=new_id(), thread_id=target.thread_id,
                               run_id=target.run_id, reason=INTERRUPT_REASON)
        try:
            outcome = await source.dispatch(command, timeout)
        except ClientError as exc:
            report("unknown", f"outcome unknown at {target.title}: {exc}; stopped "
                              f"{len(stopped)} of {len(targets)}")
            return False
        if isinstance(outcome, Accepted):
            source.supervisor.record_interrupt(target.thread_id, target.run_id, clock())
        elif not isinstance(outcome, Rejected):
            report("unknown", f"outcome unknown at {target.title}: {outcome.reason}")
            return False
        wait = timeout if isinstance(outcome, Accepted) else min(timeout, 2.0)
        if await source.wait_until(lambda t=target: ended(t), wait):
            stopped.append(target.title)
        else:
            why = f"refused: {outcome.message}" if isinstance(outcome, Rejected) \
                else f"still active after {timeout:g}s"
            missed.append(f"{target.title} ({why})")
    summary = f"stopped {len(stopped)} of {len(targets)}"
    if missed:
        report("failed", f"{summary}; still running: {'; '.join(missed)}. A stop that does not "
                         "land needs a forced stop (i on that thread)")
        return False
    report("ok", f"{summary}: {', '.join(stopped)}")
    return True


async def settle_delivery(source: Source, row: ThreadRow, action: str, *, report: Report,
                          clock: Clock, timeout: float,
                          new_id: IdFactory = new_command_id) -> bool:
    """`dispose` or `acknowledge` the child's completion delivery; the server decides and its
    refusal is reported verbatim."""
    task = row.task
    assert task is not None
    state = "disposed" if action == "dispose" else "acknowledged"
    command = (DelegatedTaskCompletionDeliveryDispose(
        command_id=new_id(), parent_thread_id=task.parent_thread_id, task_id=task.task_id)
        if action == "dispose" else DelegatedTaskCompletionDeliveryAcknowledge(
        command_id=new_id(), parent_thread_id=task.parent_thread_id, task_id=task.task_id,
        observed_by_run_id=None))

    def shown() -> bool:
        now_row = source.supervisor.row(row.id, clock())
        return now_row is not None and now_row.task is not None and now_row.task.delivery == state

    return await command_flow(
        source, command, report=report, confirmed=shown, timeout=timeout,
        doing="Disposing the delivery" if action == "dispose" else "Acknowledging the result",
        done=lambda _: f"delivery {state}",
        not_done=f"accepted, but the stream did not show it {state} within {timeout:g}s")
