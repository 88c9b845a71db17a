"""Settling a thread, with its child-safety check, and a delivery (dispose / acknowledge).

Settling detaches every live provider session of the thread; an unsettled child that runs in
one of them can lose its next turn (seed 004). `check_settle` reads the server's projections
now and names those children; the app asks its user, the CLI refuses unless `--force`, and a
policy journals it. `settle` sends `thread.settle` and waits for `settled` on the stream.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from t3tui.actions.outcome import Outcome, send_and_confirm
from t3tui.actions.port import Clock, IdFactory, Port, Report
from t3tui.client.outcome import new_command_id
from t3tui.client.settle_guard import SharedSession
from t3tui.model import SupervisorView, ThreadRow
from t3tui.protocol.commands import (
    DelegatedTaskCompletionDeliveryAcknowledge,
    DelegatedTaskCompletionDeliveryDispose,
    ThreadSettle,
)

DELIVERY_STATE = {"dispose": "disposed", "acknowledge": "acknowledged"}


@dataclass(frozen=True)
class SettleCheck:
    """What settling a thread would touch: its unsettled descendants (depth first, in tree
    order), and those of them that share a provider session the settle would detach."""

    thread_id: str
    unsettled: list[ThreadRow]
    risks: list[SharedSession]


async def check_settle(port: Port, view: SupervisorView, thread_id: str) -> SettleCheck:
    """Fresh projections from the server; raises `ClientError` when one cannot be read (a
    guard that cannot look must not answer "no risk")."""
    unsettled = view.unsettled_descendants(thread_id)
    risks = await port.settle_risks(thread_id, [r.id for r in unsettled])
    return SettleCheck(thread_id, unsettled, risks)


async def settle(port: Port, thread_id: str, *, report: Report, clock: Clock, timeout: float,
                 new_id: IdFactory = new_command_id) -> Outcome:
    """`thread.settle`; ok once the stream shows the thread settled."""

    def settled() -> ThreadRow | None:
        row = port.supervisor.row(thread_id, clock())
        return row if row is not None and row.settled else None

    return await send_and_confirm(
        port, ThreadSettle(command_id=new_id(), thread_id=thread_id), report=report,
        confirmed=settled, timeout=timeout, doing="Settling", done=lambda _: "settled",
        not_done=f"accepted, but the stream did not show it settled within {timeout:g}s",
    )


async def settle_children_first(port: Port, thread_id: str, children: list[str], *,
                                report: Report, clock: Clock, timeout: float,
                                title_of: Callable[[str], str] = str,
                                new_id: IdFactory = new_command_id) -> Outcome:
    """Settle `children` (deepest first: the reverse of `unsettled_descendants`), then the
    thread; stops at the first that does not settle. A settled child is a step, not the
    outcome: only the thread's own settle ends the report."""
    for child in children[::-1]:
        label = f"child {title_of(child)}: "

        def sub(phase: str, text: str, label: str = label) -> None:
            report("pending", label + text)

        outcome = await settle(port, child, report=sub, clock=clock, timeout=timeout,
                               new_id=new_id)
        if not outcome.ok:
            text = f"{label}did not settle; stopped before the parent"
            report("failed", text)
            return Outcome(outcome.kind, text, message=outcome.message, detail=outcome.detail,
                           command=outcome.command, extra={"child": child})
    return await settle(port, thread_id, report=report, clock=clock, timeout=timeout,
                        new_id=new_id)


async def settle_delivery(port: Port, row: ThreadRow, action: str, *, report: Report,
                          clock: Clock, timeout: float,
                          new_id: IdFactory = new_command_id) -> Outcome:
    """`dispose` ("don't wake the parent for this task") or `acknowledge` ("the parent has the
    result") the child's completion delivery; the server decides, its refusal verbatim."""
    task = row.task
    assert task is not None, "a delivery belongs to a delegated child (availability says so)"
    state = DELIVERY_STATE[action]
    command = (DelegatedTaskCompletionDeliveryDispose(
        command_id=new_id(), parent_thread_id=task.parent_thread_id, task_id=task.task_id)
        if action == "dispose" else DelegatedTaskCompletionDeliveryAcknowledge(
        command_id=new_id(), parent_thread_id=task.parent_thread_id, task_id=task.task_id,
        observed_by_run_id=None))

    def shown() -> ThreadRow | None:
        now_row = port.supervisor.row(row.id, clock())
        ok = now_row is not None and now_row.task is not None and now_row.task.delivery == state
        return now_row if ok else None

    return await send_and_confirm(
        port, command, report=report, confirmed=shown, timeout=timeout,
        doing="Disposing the delivery" if action == "dispose" else "Acknowledging the result",
        done=lambda _: f"delivery {state}",
        not_done=f"accepted, but the stream did not show it {state} within {timeout:g}s")
