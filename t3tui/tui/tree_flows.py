"""Flows of the second-wave actions (no Textual): stop a subtree, settle a delivery.

Like `flows.py`, each sends its commands, reads the effect back from the stream and reports
through `report(phase, text)`; forwarding a result is `flows.send_message` with the text
`model.forwarding.forward_text` made (the confirmation shows exactly that text).
"""

from __future__ import annotations

from t3tui.client.outcome import new_command_id
from t3tui.model import ThreadRow
from t3tui.protocol.commands import (
    DelegatedTaskCompletionDeliveryAcknowledge,
    DelegatedTaskCompletionDeliveryDispose,
)
from t3tui.tui.flows import IdFactory, Report, command_flow
from t3tui.tui.source import Clock, Source


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
