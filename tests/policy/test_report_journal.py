"""The policies' journal in the triage report: every decision under "What was done", marked
"by policy N" (commands a policy sent, and decisions that sent nothing)."""

from types import SimpleNamespace

from t3tui.client.replay import ReplayLog, SentCommand
from t3tui.client.triage import _actions
from t3tui.words.report import _actions as markdown_actions


def test_every_decision_is_in_what_was_done_marked_by_its_policy() -> None:
    log = ReplayLog()
    log.commands = [
        SentCommand(10.0, {"type": "run.interrupt", "commandId": "c1", "threadId": "child"},
                    "accepted", 10.1),
        SentCommand(11.0, {"type": "thread.settle", "commandId": "c9", "threadId": "parent"},
                    "accepted", 11.1),
    ]
    log.policies = [
        (10.5, {"policy": 1, "threadId": "child", "verdict": "act", "done": True,
                "do": ["interrupt", "forward"],
                "steps": [{"action": "interrupt", "outcome": "ok", "text": "stopped",
                           "sent": [{"type": "run.interrupt", "commandId": "c1"}]},
                          {"action": "forward", "outcome": "unavailable",
                           "text": "nothing to forward", "sent": []}]}),
        (12.0, {"policy": 2, "threadId": "child", "verdict": "skip", "done": False,
                "do": ["force-stop"], "why": "it began before t3tui was watching",
                "steps": []}),
        (13.0, {"policy": 3, "threadId": "child", "verdict": "dry-run", "done": True,
                "do": ["checkin"],
                "steps": [{"action": "checkin", "outcome": "dry-run", "text": "would send",
                           "sent": [{"type": "message.dispatch"}]}]}),
    ]
    actions = _actions(SimpleNamespace(log=log), [])  # type: ignore[arg-type]
    rows = [(a.command, a.by, a.outcome, a.message) for a in actions]
    assert rows == [
        ("run.interrupt", "policy 1", "accepted", ""),
        ("forward", "policy 1", "unavailable", "nothing to forward"),
        ("thread.settle", "", "accepted", ""),  # the user's own: no policy
        ("skipped force-stop", "policy 2", "not sent", "it began before t3tui was watching"),
        ("would checkin", "policy 3", "dry run", "message.dispatch"),
    ]
    doc = {"actions": [{"at": "2026-12-03T09:00:10.000Z", "command": a.command,
                        "thread": a.thread_id, "outcome": a.outcome, "message": a.message,
                        "confirmedAt": None, "confirmed": "", "by": a.by} for a in actions]}
    text = "\n".join(markdown_actions(doc))
    assert "| run.interrupt (by policy 1) |" in text
    assert "| skipped force-stop (by policy 2) |" in text
    assert "| thread.settle |" in text
