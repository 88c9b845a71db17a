"""What the second-wave actions act on (pure): stop a subtree, forward a result, dispose or
acknowledge a pending delivery. The app and the headless commands share these decisions and
texts; each sends its commands and reads the outcome back from the stream.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

from t3tui.model.labels import clock, one_line
from t3tui.model.rows import SupervisorView, ThreadRow

UNDELIVERED = frozenset({"pending", "claimed"})
TOLD = frozenset({"delivered", "acknowledged"})
TERMINAL_TASK = frozenset({"completed", "failed", "cancelled", "interrupted"})


def subtree(view: SupervisorView, root_id: str) -> Iterator[tuple[int, ThreadRow]]:
    """`root_id` and every descendant shown, each once, with its depth below `root_id`."""
    seen: set[str] = set()
    stack = [(root_id, 0)]
    while stack:
        tid, depth = stack.pop()
        row = view.row(tid)
        if row is None or tid in seen:
            continue
        seen.add(tid)
        yield depth, row
        stack.extend((kid, depth + 1) for kid in row.children)


def stop_order(view: SupervisorView, root_id: str,
               wanted: Callable[[ThreadRow], bool] | None = None) -> list[ThreadRow]:
    """`root_id` and every descendant with an active run (or that `wanted` picks), deepest
    first (a parent is stopped after its children, so no child is left running under a
    stopped parent)."""
    out = [(depth, n, row) for n, (depth, row) in enumerate(subtree(view, root_id))
           if ((row.active_run_id is not None) if wanted is None else wanted(row))]
    return [row for _, _, row in sorted(out, key=lambda x: (-x[0], x[1]))]


def not_told(row: ThreadRow) -> bool:
    """The parent will not learn this child's result by itself: still pending/claimed, or
    its wake was disposed / its cohort stopped."""
    task = row.task
    if task is None:
        return False
    return task.delivery in UNDELIVERED or task.delivery == "disposed" or \
        task.cohort not in (None, "open")


def forward_refusal(row: ThreadRow, *, force: bool = False,
                    again: str = "use --force to send it again") -> str | None:
    """Why this thread's result cannot be forwarded (None: it can). `again`: how to send it
    anyway, in the words of the front end asking (a flag for the CLI)."""
    task = row.task
    if task is None:
        return f"{row.title} is not a delegated child: there is no result to forward"
    if task.status not in TERMINAL_TASK or task.result is None:
        return (f"{row.title} has not published a result yet (task {task.status or 'unknown'}); "
                "forward it once it finishes")
    if not force and not not_told(row):
        return (f"{row.title}'s result was already {task.delivery or 'delivered'} to its parent; "
                + again)
    return None


def forwarded_refusal(row: ThreadRow, forwards: dict[str, datetime | None],
                      again: str | None = None) -> str | None:
    """Why this child's result is not forwarded again: the parent's messages (`forwards`, its
    `Supervisor.forwards`) already carry t3tui's forward of it. `again`: how to anyway."""
    if row.task is None or row.task.task_id not in forwards:
        return None
    at = forwards[row.task.task_id]
    when = f" at {clock(at)} UTC" if at is not None else ""
    return (f"{row.title}'s result was already forwarded to its parent{when}"
            + (f"; {again}" if again else ""))


def forward_text(row: ThreadRow) -> str:
    """The user message that hands a child's final answer to its parent: title, task id, and
    the answer quoted line by line (kept as the agent wrote it; only control characters go)."""
    task = row.task
    assert task is not None and task.result is not None
    title = one_line(task.title or row.title)
    lines = task.result.splitlines() or [""]
    quoted = "\n".join("> " + one_line(line) if line.strip() else ">" for line in lines)
    status = "" if task.status == "completed" else f" It ended {task.status}."
    return (f'Result of the delegated task "{title}" (taskId {task.task_id}), forwarded by '
            f"t3tui because it was not delivered to you.{status}\n\n{quoted}")


def delivery_refusal(row: ThreadRow, action: str) -> str | None:
    """Why `dispose` / `acknowledge` does not apply to this thread's delivery (None: it does).
    The server has the last word; its refusal is shown verbatim."""
    task = row.task
    if task is None:
        return f"{row.title} is not a delegated child: it has no completion delivery"
    if task.delivery in ("disposed", "acknowledged"):
        return f"{row.title}'s delivery is already {task.delivery}"
    if action == "acknowledge" and task.status not in TERMINAL_TASK:
        return f"{row.title} has no result to acknowledge yet (task {task.status or 'unknown'})"
    return None


__all__ = ["delivery_refusal", "forward_refusal", "forward_text", "forwarded_refusal", "not_told",
           "stop_order"]


def unheard_text(row: ThreadRow, record_text: str, marker: str, where: str) -> str:
    """The message that hands the parent a child's answer T3 never received: the provider's
    own record had it (`marker` at `where`), so it is quoted from there."""
    title = one_line((row.task.title if row.task else None) or row.title)
    task = f" (taskId {row.task.task_id})" if row.task else ""
    lines = record_text.splitlines() or [""]
    quoted = "\n".join("> " + one_line(line) if line.strip() else ">" for line in lines)
    return (f'Answer of the delegated task "{title}"{task}, forwarded by t3tui: the '
            f"provider finished the turn ({marker}, {where}) but T3 never received it.\n\n{quoted}")


def unheard_answer(row: ThreadRow, records: dict[str, object]) -> tuple[str, str, str] | None:
    """(text, marker, where) from a `provider_finished_unheard` finding on `row` and the
    record it cites (the full last message, kept in memory; None when there is none)."""
    finding = next((f for f in row.findings if f.kind == "provider_finished_unheard"), None)
    record = records.get(row.id)
    if finding is None or record is None:
        return None
    line = finding.evidence.get("recordLine")
    turn = next((t for t in getattr(record, "turns", ()) if t.line == line), None)
    if turn is None or not turn.last_message:
        return None
    where = f"{finding.evidence.get('recordFile')}:{line}"
    return turn.last_message, str(finding.evidence.get("marker")), where
