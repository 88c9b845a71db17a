"""The showcase's frames plus a thread that asks the user a question (a form to answer)."""

from __future__ import annotations

from typing import Any

from t3tui.tui.sources.frames import load_frames
from tests.model import factory as f

SCRATCH = "thread-scratch"


def question_frames(question: str = "Which branch?") -> list[dict[str, Any]]:
    row = f.shell_row(SCRATCH, "Scratch", 7, status="running", activity="running", run="run-q",
                      requested=290, started=290, updated=295,
                      pending={"id": "rq-9", "kind": "user_input", "createdAt": f.iso(295)})
    item = f.turn_item("ask-9", SCRATCH, "run-q", "user_input_request", 295, 295,
                       status="running", requestId="rq-9",
                       questions=[{"id": "branch", "header": "Branch",
                                   "question": question, "options": []}])
    return [*load_frames("showcase"),
            {"stream": "shell", "item": {"kind": "thread.updated", "sequence": 99990,
                                         "location": "active", "thread": row}},
            {"stream": "thread", "threadId": SCRATCH, "item": {
                "kind": "event", "sequence": 99991, "event": {
                    "id": "evt-q", "threadId": SCRATCH, "occurredAt": f.iso(295),
                    "type": "turn-item.updated", "payload": item}}}]
