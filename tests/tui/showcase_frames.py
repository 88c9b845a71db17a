"""Write the recorded frames behind the snapshots and screenshots:
`python -m tests.tui.showcase_frames` -> `t3tui/tui/recorded/showcase.json`.

One server's worth of threads in every supervisor state, with fixed ids and times (seconds
after 2026-10-04T12:00:00Z; the snapshots freeze the clock at SHOWCASE_NOW):

- "Review panel": two wait-mode children that ran one at a time (seed 000: serialized).
- "Orchestrator": settled while its child shared its provider session; the child's
  check-in run then never finished (seed 004: stuck).
- "Fan out": children needing input (agent text with [brackets]), queued, creating,
  draining (with a running grandchild) and done.
- "Release notes" (settled) and "Scratch" (idle) at top level.
- "Nightly sweep": stopped while its child crawls on (children orphaned: it will never be told);
  "Docs site": its run is over, its child still works and will wake it (waiting).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.model import factory as f
from tests.model.timeline import Timeline

OUT = Path(__file__).resolve().parents[2] / "t3tui" / "tui" / "recorded" / "showcase.json"
SHOWCASE_NOW = 300.0

RP, OR, FO = "thread-review", "thread-orchestrator", "thread-fanout"


def begin_run(tl: Timeline, tid: str, rid: str, t: float, pthread: str,
              session: str | None = None, ordinal: int = 1, text: str | None = None) -> None:
    tl.event(tid, "message.updated",
             f.message(f"msg-{rid}", tid, rid, "user", text or f"work for {rid}", t), t, rid)
    tl.event(tid, "run.created", f.run(rid, tid, ordinal, "queued", t, pthread=pthread), t, rid)
    if session:
        tl.event(tid, "provider-session.attached", f.provider_session(session, "running", t), t)
    tl.event(tid, "provider-thread.updated", f.provider_thread(pthread, tid, session, "active", t), t)
    tl.event(tid, "run-attempt.created", f.attempt(rid, t, pthread), t, rid)
    tl.event(tid, "run.updated", f.run(rid, tid, ordinal, "running", t, t, pthread=pthread,
                                       cohort="open"), t, rid)
    tl.event(tid, "provider-turn.updated", f.provider_turn(f"turn-{rid}", rid, pthread, "running", t),
             t, rid)


def progress(tl: Timeline, tid: str, rid: str, t: float, n: int, what: str = "make test") -> None:
    tl.event(tid, "turn-item.updated", f.turn_item(f"item-{rid}-{n}", tid, rid, "command_execution",
                                                   t, t, input=what), t, rid)


def say(tl: Timeline, tid: str, rid: str, mid: str, text: str, t: float) -> None:
    tl.event(tid, "message.updated", f.message(mid, tid, rid, "assistant", text, t), t, rid)


def end_run(tl: Timeline, tid: str, rid: str, started: float, t: float, pthread: str,
            reply: str, session: str | None = None, ordinal: int = 1) -> None:
    say(tl, tid, rid, f"reply-{rid}", reply, t)
    tl.event(tid, "provider-turn.updated",
             f.provider_turn(f"turn-{rid}", rid, pthread, "completed", started, t), t, rid)
    tl.event(tid, "run.updated", f.run(rid, tid, ordinal, "completed", started, started, t, pthread,
                                       "open"), t, rid)
    tl.event(tid, "provider-thread.updated", f.provider_thread(pthread, tid, session, "idle", t), t)


def tool_call(tl: Timeline, parent: str, rid: str, crid: str, t: float,
              done: float | None = None, timeout_ms: int = 600000) -> None:
    task, _ = f.task_ids(crid)
    extra: dict[str, Any] = {
        "toolName": "mcp__t3_code__delegate_task",
        "input": {"mode": "wait", "timeoutMs": timeout_ms, "clientRequestId": crid,
                  "title": crid, "task": "review"},
    }
    if done is not None:
        extra["output"] = {"taskId": task, "status": "completed", "waitTimedOut": False}
    tl.event(parent, "turn-item.updated", f.turn_item(
        f"tool-{crid}", parent, rid, "dynamic_tool", t, done if done is not None else t,
        status="completed" if done is not None else "running", completed=done, **extra), t, rid)


def delegate(tl: Timeline, parent: str, parent_run: str, crid: str, title: str, t: float,
             wake: str, pthread: str, session: str | None = None, start: bool = True,
             status: str = "running", activity: str | None = "running") -> tuple[str, str]:
    task, child = f.task_ids(crid)
    tl.event(parent, "subagent.updated", f.subagent(task, parent, parent_run, child, title, wake=wake,
                                                    status="running", started=t), t, parent_run)
    if not start:
        return task, child
    tl.shell(f.shell_row(child, title, t, parent=parent, status=status, activity=activity,
                         run=f"run-{crid}", requested=t, started=t))
    tl.subscribe(child)
    begin_run(tl, child, f"run-{crid}", t, pthread, session, text=f"{title}: do the work")
    return task, child


def review_panel(tl: Timeline) -> None:
    """Seed 000: the second wait call reaches the server only when the first returned."""
    tl.shell(f.shell_row(RP, "Review panel", 0, status="running", activity="running",
                         run="run-rp", requested=0, started=0))
    tl.subscribe(RP)
    begin_run(tl, RP, "run-rp", 0, "pt-rp", text="Run two reviewers in parallel.")
    say(tl, RP, "run-rp", "m-claim", "Started 2 reviewers in parallel: review-a, review-b.", 1.0)
    tool_call(tl, RP, "run-rp", "review-a", 2.0)
    task_a, a = delegate(tl, RP, "run-rp", "review-a", "Reviewer A", 2.0, "settled_only", "pt-ra")
    for n, t in enumerate((30.0, 60.0)):
        progress(tl, a, "run-review-a", t, n, "git diff main")
    end_run(tl, a, "run-review-a", 2.0, 88.0, "pt-ra", reply="LGTM with two nits.")
    tl.shell(f.shell_row(a, "Reviewer A", 2.0, parent=RP, status="completed", run="run-review-a",
                         requested=2.0, started=2.0, completed=88.0, updated=88.0))
    tl.event(RP, "subagent.updated", f.subagent(task_a, RP, "run-rp", a, "Reviewer A",
                                                wake="settled_only", status="completed",
                                                started=2.0, completed=88.0, delivery="delivered"),
             88.0, "run-rp")
    tl.event(RP, "context-transfer.created", f.transfer("x-ra", "subagent_result", a, RP, 88.0), 88.0)
    tool_call(tl, RP, "run-rp", "review-a", 2.0, done=88.0)
    tool_call(tl, RP, "run-rp", "review-b", 88.02)
    _task_b, b = delegate(tl, RP, "run-rp", "review-b", "Reviewer B", 88.02, "settled_only", "pt-rb")
    for n, t in enumerate((150.0, 220.0, 290.0)):
        progress(tl, b, "run-review-b", t, n, "pytest -q")
    tl.shell(f.shell_row(b, "Reviewer B", 88.02, parent=RP, status="running", activity="running",
                         run="run-review-b", requested=88.02, started=88.02, updated=290.0))


def orchestrator(tl: Timeline) -> None:
    """Seed 004: settle a parent whose child runs in its provider session, then check in."""
    tl.shell(f.shell_row(OR, "Orchestrator", 10, status="running", activity="running",
                         run="run-or", requested=10, started=10))
    tl.subscribe(OR)
    begin_run(tl, OR, "run-or", 10, "pt-or", session="ps-1")
    task, c = delegate(tl, OR, "run-or", "ready-1", "Ready check", 12.0, "always", "pt-rc",
                       session="ps-1")
    end_run(tl, c, "run-ready-1", 12.0, 15.0, "pt-rc", reply="READY", session="ps-1")
    tl.shell(f.shell_row(c, "Ready check", 12.0, parent=OR, status="completed", run="run-ready-1",
                         requested=12.0, started=12.0, completed=15.0, updated=15.0))
    tl.event(OR, "subagent.updated", f.subagent(task, OR, "run-or", c, "Ready check", wake="always",
                                                status="completed", started=12.0, completed=15.0,
                                                delivery="delivered"), 16.0, "run-or")
    tl.event(OR, "context-transfer.created", f.transfer("x-rc", "subagent_result", c, OR, 15.2), 15.2)
    end_run(tl, OR, "run-or", 10.0, 18.0, "pt-or", reply="PARENT_DONE", session="ps-1")
    tl.shell(f.shell_row(OR, "Orchestrator", 10, status="completed", run="run-or", requested=10,
                         started=10, completed=18.0, updated=18.0))
    tl.mark("before-settle")
    tl.shell(f.shell_row(OR, "Orchestrator", 10, status="completed", run="run-or", requested=10,
                         started=10, completed=18.0, updated=100.0, settled_at=100.0))
    tl.event(OR, "thread.settled", f.app_thread(OR, "Orchestrator", 10, settled_at=100.0,
                                                updated=100.0), 100.0)
    tl.event(OR, "provider-session.detached", {"providerSessionId": "ps-1",
                                               "detachedAt": f.iso(100.0),
                                               "reason": "Thread settled."}, 100.0)
    tl.event(c, "message.updated", f.message("m-checkin", c, "run-c2", "user",
                                             "Reply exactly PONG", 130.0), 130.0, "run-c2")
    tl.event(c, "run.created", f.run("run-c2", c, 2, "queued", 130.0, pthread="pt-rc"), 130.0,
             "run-c2")
    tl.event(c, "run-attempt.created", f.attempt("run-c2", 130.5, "pt-rc"), 130.5, "run-c2")
    tl.event(c, "run.updated", f.run("run-c2", c, 2, "running", 130.0, 130.5, pthread="pt-rc"),
             130.5, "run-c2")
    tl.event(c, "provider-turn.updated", f.provider_turn("turn-c2", "run-c2", "pt-rc", "running",
                                                         130.5, ordinal=2), 130.5, "run-c2")
    tl.shell(f.shell_row(c, "Ready check", 12.0, parent=OR, status="running", activity="running",
                         run="run-c2", requested=130.0, started=130.5, updated=130.5))


BRACKETS = "Run [bold]migrations[/bold] on [red]prod[/red]? See [docs](https://x/y) [y/N]"


def fan_out(tl: Timeline) -> None:
    """Children in the remaining states: needs input, queued, creating, draining, done."""
    tl.shell(f.shell_row(FO, "Fan out", 20, status="running", activity="running", run="run-fo",
                         requested=20, started=20))
    tl.subscribe(FO)
    begin_run(tl, FO, "run-fo", 20, "pt-fo", text="Split the release into five tasks.")
    _t, mig = delegate(tl, FO, "run-fo", "migrate", "Migrate DB", 21.0, "always", "pt-mig")
    progress(tl, mig, "run-migrate", 40.0, 0, "alembic check")
    say(tl, mig, "run-migrate", "m-mig", BRACKETS, 41.0)
    tl.event(mig, "turn-item.updated", f.turn_item(
        "appr-1", mig, "run-migrate", "approval_request", 42.0, 42.0, status="running",
        requestId="rr-1", requestKind="command", prompt=f"Allow `alembic upgrade head`? {BRACKETS}",
        options=[{"decision": "accept", "label": "Allow once"},
                 {"decision": "decline", "label": "Deny"}]), 42.0, "run-migrate")
    tl.event(mig, "runtime-request.updated", f.runtime_request("rr-1", "command", "pending", 42.0),
             42.0)
    tl.shell(f.shell_row(mig, "Migrate DB", 21.0, parent=FO, status="running", activity="running",
                         run="run-migrate", requested=21.0, started=21.0, updated=42.0,
                         pending={"id": "rr-1", "kind": "command", "createdAt": f.iso(42.0)},
                         message={"id": "m-mig", "role": "assistant", "text": BRACKETS,
                                  "updatedAt": f.iso(41.0)}))
    task_t, tests = delegate(tl, FO, "run-fo", "tests", "Tests", 22.0, "always", "pt-tests")
    end_run(tl, tests, "run-tests", 22.0, 140.0, "pt-tests", reply="All 412 tests pass.")
    tl.shell(f.shell_row(tests, "Tests", 22.0, parent=FO, status="completed", run="run-tests",
                         requested=22.0, started=22.0, completed=140.0, updated=140.0))
    tl.event(FO, "subagent.updated", f.subagent(task_t, FO, "run-fo", tests, "Tests", wake="always",
                                                status="completed", started=22.0, completed=140.0,
                                                delivery="delivered"), 141.0, "run-fo")
    tl.event(FO, "context-transfer.created", f.transfer("x-t", "subagent_result", tests, FO, 140.2),
             140.2)
    # T3's own wake text names the task by its wire id (delivery.py); the app shows names
    tl.event(FO, "message.updated", f.message(
        "msg-wake-tests", FO, "run-fo", "user",
        f"Delegated task {task_t} reached a terminal state. Use task_status with taskId "
        f"{task_t} to read the result.", 141.0), 141.0, "run-fo")
    say(tl, FO, "run-fo", "msg-fo-tests", f"{task_t}: completed: All 412 tests pass.", 141.5)
    _t, build = delegate(tl, FO, "run-fo", "build", "Build", 23.0, "always", "pt-build")
    _t, comp = delegate(tl, build, "run-build", "compile", "Compile", 200.0, "always", "pt-comp")
    progress(tl, comp, "run-compile", 295.0, 0, "cargo build --release")
    tl.shell(f.shell_row(comp, "Compile", 200.0, parent=build, status="running", activity="running",
                         run="run-compile", requested=200.0, started=200.0, updated=295.0))
    tl.event(build, "provider-turn.updated", f.provider_turn("turn-run-build", "run-build", "pt-build",
                                                             "completed", 23.0, 285.0), 285.0,
             "run-build")
    tl.event(build, "run.updated", f.run("run-build", build, 1, "waiting", 23.0, 23.0,
                                         pthread="pt-build", cohort="open"), 285.0, "run-build")
    tl.shell(f.shell_row(build, "Build", 23.0, parent=FO, status="waiting", activity="waiting",
                         run="run-build", requested=23.0, started=23.0, updated=285.0))
    _t, lint = delegate(tl, FO, "run-fo", "lint", "Lint", 250.0, "always", "pt-lint", start=False)
    tl.shell(f.shell_row(lint, "Lint", 250.0, parent=FO, status="queued", activity=None,
                         run="run-lint", requested=250.0, active=True))
    tl.subscribe(lint)
    tl.event(lint, "run.created", f.run("run-lint", lint, 1, "queued", 250.0, pthread="pt-lint"),
             250.0, "run-lint")
    delegate(tl, FO, "run-fo", "docs", "Docs", 296.0, "always", "pt-docs", start=False)
    progress(tl, FO, "run-fo", 290.0, 0, "git log --oneline")


def top_level(tl: Timeline) -> None:
    tl.shell(f.shell_row("thread-notes", "Release notes", 5, status="completed", run="run-n",
                         requested=5, started=5, completed=9, updated=60, settled_at=60))
    tl.shell(f.shell_row("thread-scratch", "Scratch", 7, status="completed", run="run-s",
                         requested=7, started=7, completed=8, updated=8,
                         message={"id": "m-s", "role": "assistant", "text": "[done] nothing to do",
                                  "updatedAt": f.iso(8)}))


def stopped_sweep(tl: Timeline) -> None:
    """A parent stopped mid-run (cohort `stopped`) and one whose child will still wake it."""
    for tid, title, crid, child_title, status, cohort in (
            ("thread-sweep", "Nightly sweep", "crawl", "Crawl", "interrupted", "stopped"),
            ("thread-docs", "Docs site", "render", "Render pages", "completed", "open")):
        rid = f"run-{crid}-parent"
        tl.shell(f.shell_row(tid, title, 30, status="running", activity="running", run=rid,
                             requested=30, started=30))
        tl.subscribe(tid)
        begin_run(tl, tid, rid, 30, f"pt-{crid}-p")
        _t, child = delegate(tl, tid, rid, crid, child_title, 31.0, "always", f"pt-{crid}")
        progress(tl, child, f"run-{crid}", 292.0, 0, "wget --mirror")
        tl.shell(f.shell_row(child, child_title, 31.0, parent=tid, status="running",
                             activity="running", run=f"run-{crid}", requested=31.0, started=31.0,
                             updated=292.0))
        tl.event(tid, "provider-turn.updated", f.provider_turn(f"turn-{rid}", rid, f"pt-{crid}-p",
                                                               status, 30, 150.0), 150.0, rid)
        tl.event(tid, "run.updated", f.run(rid, tid, 1, status, 30, 30, 150.0, f"pt-{crid}-p",
                                           cohort), 150.0, rid)
        tl.event(tid, "provider-thread.updated",
                 f.provider_thread(f"pt-{crid}-p", tid, None, "idle", 150.0), 150.0)
        tl.shell(f.shell_row(tid, title, 30, status=status, run=rid, requested=30, started=30,
                             completed=150.0, updated=150.0))


def build() -> Timeline:
    tl = Timeline("t3tui showcase: every supervisor state, seed 000 and seed 004 in one server.")
    review_panel(tl)
    fan_out(tl)
    top_level(tl)
    stopped_sweep(tl)
    orchestrator(tl)  # last: replaying `until="before-settle"` keeps everything else
    return tl


def main() -> None:
    tl = build()
    body = ",\n".join(json.dumps(frame, separators=(",", ":")) for frame in tl.frames)
    OUT.write_text(
        "{\"description\": " + json.dumps(tl.description) + ",\n\"frames\": [\n" + body + "\n]}\n"
    )
    print(OUT)


if __name__ == "__main__":
    main()
