"""Write the model's frame fixtures: `python -m tests.model.frames.generate`.

Each scenario follows the event order of t3-protocol.md §9.3 and delegation.md §4/§6; times are
seconds after T0 (2026-10-04T12:00:00Z).
"""

from __future__ import annotations

from tests.model import factory as f
from tests.model.timeline import Timeline

P = "thread-parent"


def begin_run(tl: Timeline, tid: str, rid: str, t: float, pthread: str, session: str | None = None,
              ordinal: int = 1, turn: str | None = None) -> None:
    """message, run queued -> running, session/provider thread, attempt, provider turn."""
    tl.event(tid, "message.updated", f.message(f"msg-{rid}", tid, rid, "user", f"work for {rid}", t), t, rid)
    tl.event(tid, "run.created", f.run(rid, tid, ordinal, "queued", t, pthread=pthread), t, rid)
    if session:
        tl.event(tid, "provider-session.attached", f.provider_session(session, "running", t), t)
    tl.event(tid, "provider-thread.updated", f.provider_thread(pthread, tid, session, "active", t), t)
    tl.event(tid, "run-attempt.created", f.attempt(rid, t, pthread), t, rid)
    tl.event(tid, "run.updated", f.run(rid, tid, ordinal, "running", t, t, pthread=pthread, cohort="open"), t, rid)
    tl.event(tid, "provider-turn.updated",
             f.provider_turn(turn or f"turn-{rid}", rid, pthread, "running", t), t, rid)


def progress(tl: Timeline, tid: str, rid: str, t: float, n: int) -> None:
    tl.event(tid, "turn-item.updated", f.turn_item(f"item-{rid}-{n}", tid, rid, "command_execution",
                                                   t, t, input="make test"), t, rid)


def end_run(tl: Timeline, tid: str, rid: str, started: float, t: float, pthread: str,
            reply: str = "done", ordinal: int = 1, turn: str | None = None,
            session: str | None = None) -> None:
    tl.event(tid, "message.updated", f.message(f"reply-{rid}", tid, rid, "assistant", reply, t), t, rid)
    tl.event(tid, "provider-turn.updated",
             f.provider_turn(turn or f"turn-{rid}", rid, pthread, "completed", started, t), t, rid)
    tl.event(tid, "run.updated", f.run(rid, tid, ordinal, "completed", started, started, t, pthread, "open"), t, rid)
    tl.event(tid, "provider-thread.updated", f.provider_thread(pthread, tid, session, "idle", t), t)


def tool_call(tl: Timeline, crid: str, t: float, done: float | None = None, timeout_ms: int = 60000,
              mode: str = "wait") -> None:
    task, _ = f.task_ids(crid)
    extra = {"toolName": "mcp__t3_code__delegate_task",
             "input": {"mode": mode, "timeoutMs": timeout_ms, "clientRequestId": crid,
                       "title": crid, "task": "review"}}
    if done is not None:
        extra["output"] = {"taskId": task, "status": "running", "waitTimedOut": True}
    tl.event(P, "turn-item.updated", f.turn_item(
        f"tool-{crid}", P, "run-p1", "dynamic_tool", t, done if done is not None else t,
        status="completed" if done is not None else "running", completed=done, **extra), t, "run-p1")


def delegate(tl: Timeline, crid: str, title: str, t: float, wake: str | None, *,
             pthread: str, session: str | None = None, parent_run: str = "run-p1",
             parent: str = P) -> tuple[str, str]:
    """The delegated_task.request transaction, then the child's first run."""
    task, child = f.task_ids(crid)
    tl.event(parent, "subagent.updated", f.subagent(task, parent, parent_run, child, title, wake=wake,
                                                    status="running", started=t), t, parent_run)
    tl.shell(f.shell_row(child, title, t, parent=parent, status="running", activity="running",
                         run=f"run-{crid}", requested=t, started=t))
    tl.subscribe(child)
    begin_run(tl, child, f"run-{crid}", t, pthread, session)
    return task, child


def seed000(parallel: bool) -> Timeline:
    """Two wait-mode delegate_task calls: serial (bug 1, seed 000) or really parallel."""
    what = "parallel (healthy control)" if parallel else "one at a time (seed 000, bug 1)"
    tl = Timeline(f"Parent issues two delegate_task(mode=wait, timeoutMs=60000) calls; they run {what}.")
    tl.shell(f.shell_row(P, "Review panel", 0, status="running", activity="running", run="run-p1",
                         requested=0, started=0))
    tl.subscribe(P)
    begin_run(tl, P, "run-p1", 0, "pt-p")
    # the narration the reference backend's agent uses, or an explicit one naming the ids
    claim = ("Started two reviewers in parallel (clientRequestId: probe-a, clientRequestId: probe-b); "
             "both are running.") if parallel else "Started 2 children: probe-a, probe-b."
    tl.event(P, "message.updated", f.message("m-claim", P, "run-p1", "assistant", claim, 0.5), 0.5, "run-p1")
    b_at = 1.3 if parallel else 61.02
    tool_call(tl, "probe-a", 1.0)
    task_a, child_a = delegate(tl, "probe-a", "Probe A", 1.0, "settled_only", pthread="pt-a")
    if parallel:
        tool_call(tl, "probe-b", b_at)
        task_b, child_b = delegate(tl, "probe-b", "Probe B", b_at, "settled_only", pthread="pt-b")
    for n, t in enumerate(range(20, 61, 20)):
        progress(tl, child_a, "run-probe-a", t, n)
    tl.mark("mid-wait")
    # A's wait times out: the server flips the wake policy, the tool call returns
    tl.event(P, "subagent.updated", f.subagent(task_a, P, "run-p1", child_a, "Probe A", wake="always",
                                               status="running", started=1.0, updated=61.0), 61.0, "run-p1")
    tool_call(tl, "probe-a", 1.0, done=61.0)
    if parallel:
        tl.event(P, "subagent.updated", f.subagent(task_b, P, "run-p1", child_b, "Probe B", wake="always",
                                                   status="running", started=b_at, updated=61.3), 61.3, "run-p1")
        tool_call(tl, "probe-b", b_at, done=61.3)
    else:
        tool_call(tl, "probe-b", b_at)
        task_b, child_b = delegate(tl, "probe-b", "Probe B", b_at, "settled_only", pthread="pt-b")
    tl.mark("after-first-return")
    for n, t in enumerate(range(70, 121, 20)):
        progress(tl, child_a, "run-probe-a", t, 10 + n)
        progress(tl, child_b, "run-probe-b", t + 1, 10 + n)
    return tl


def seed004(fault: bool) -> Timeline:
    """Parent and child share provider session ps-1; the parent is settled; a check-in follows."""
    what = "the child's check-in run then stays running (seed 004, bug 2)" if fault else \
        "the child answers the check-in (healthy control)"
    tl = Timeline(f"Settle a parent whose child shares its Codex session; {what}.")
    tl.shell(f.shell_row(P, "Orchestrator", 0, status="running", activity="running", run="run-p1",
                         requested=0, started=0))
    tl.subscribe(P)
    begin_run(tl, P, "run-p1", 0, "pt-p", session="ps-1")
    task, child = delegate(tl, "ready-1", "Ready check", 2.0, "always", pthread="pt-c", session="ps-1")
    end_run(tl, child, "run-ready-1", 2.0, 5.0, "pt-c", reply="READY", session="ps-1")
    tl.shell(f.shell_row(child, "Ready check", 2.0, parent=P, status="completed", run="run-ready-1",
                         requested=2.0, started=2.0, completed=5.0, updated=5.0))
    tl.event(P, "subagent.updated", f.subagent(task, P, "run-p1", child, "Ready check", wake="always",
                                               status="completed", started=2.0, completed=5.0,
                                               delivery="claimed"), 5.2, "run-p1")
    tl.event(P, "context-transfer.created", f.transfer("xfer-r", "subagent_result", child, P, 5.2), 5.2)
    end_run(tl, P, "run-p1", 0.0, 8.0, "pt-p", reply="PARENT_DONE", session="ps-1")
    tl.event(P, "subagent.updated", f.subagent(task, P, "run-p1", child, "Ready check", wake="always",
                                               status="completed", started=2.0, completed=5.0,
                                               updated=8.0, delivery="delivered"), 8.0, "run-p1")
    tl.shell(f.shell_row(P, "Orchestrator", 0, status="completed", run="run-p1", requested=0,
                         started=0, completed=8.0, updated=8.0))
    tl.mark("before-settle")
    # settle the parent: thread.settled, then the detach of every live session it holds
    tl.shell(f.shell_row(P, "Orchestrator", 0, status="completed", run="run-p1", requested=0,
                         started=0, completed=8.0, updated=100.0, settled_at=100.0))
    tl.event(P, "thread.settled", f.app_thread(P, "Orchestrator", 0, settled_at=100.0, updated=100.0), 100.0)
    tl.event(P, "provider-session.detached", {"providerSessionId": "ps-1", "detachedAt": f.iso(100.0),
                                              "reason": "Thread settled."}, 100.0)
    tl.mark("after-settle")
    # the check-in to the child
    tl.event(child, "message.updated", f.message("m-checkin", child, "run-c2", "user",
                                                 "Reply exactly PONG", 130.0), 130.0, "run-c2")
    tl.event(child, "run.created", f.run("run-c2", child, 2, "queued", 130.0, pthread="pt-c"), 130.0, "run-c2")
    tl.event(child, "run-attempt.created", f.attempt("run-c2", 130.5, "pt-c"), 130.5, "run-c2")
    tl.event(child, "run.updated", f.run("run-c2", child, 2, "running", 130.0, 130.5, pthread="pt-c"), 130.5, "run-c2")
    tl.event(child, "provider-turn.updated", f.provider_turn("turn-c2", "run-c2", "pt-c", "running", 130.5,
                                                             ordinal=2), 130.5, "run-c2")
    tl.shell(f.shell_row(child, "Ready check", 2.0, parent=P, status="running", activity="running",
                         run="run-c2", requested=130.0, started=130.5, updated=130.5))
    if not fault:
        end_run(tl, child, "run-c2", 130.5, 132.0, "pt-c", reply="PONG", ordinal=2, turn="turn-c2",
                session="ps-1")
        tl.shell(f.shell_row(child, "Ready check", 2.0, parent=P, status="completed", run="run-c2",
                             requested=130.0, started=130.5, completed=132.0, updated=132.0,
                             message={"id": "reply-run-c2", "role": "assistant", "text": "PONG",
                                      "updatedAt": f.iso(132.0)}))
    return tl


def slow_progress() -> Timeline:
    """A child that works for 20 minutes, with a tool item every minute: never stuck."""
    tl = Timeline("Async child running 20 min, slow but progressing (healthy control).")
    tl.shell(f.shell_row(P, "Long job", 0, status="completed", run="run-p1", requested=0, started=0,
                         completed=3, updated=3))
    tl.subscribe(P)
    begin_run(tl, P, "run-p1", 0, "pt-p")
    _task, child = delegate(tl, "slow-1", "Slow build", 1.0, "always", pthread="pt-c")
    end_run(tl, P, "run-p1", 0, 3.0, "pt-p", reply="Delegated; I will be woken.")
    for n, t in enumerate(range(60, 1201, 60)):
        progress(tl, child, "run-slow-1", t, n)
        tl.shell(f.shell_row(child, "Slow build", 1.0, parent=P, status="running", activity="running",
                             run="run-slow-1", requested=1.0, started=1.0, updated=t))
    return tl


def approval() -> Timeline:
    """A child blocked on an approval for half an hour: needs input, never stuck."""
    tl = Timeline("Child waiting on a human approval for 30 min (healthy control).")
    tl.shell(f.shell_row(P, "Needs a human", 0, status="completed", run="run-p1", requested=0,
                         started=0, completed=3, updated=3))
    tl.subscribe(P)
    begin_run(tl, P, "run-p1", 0, "pt-p")
    _task, child = delegate(tl, "ask-1", "Migrate DB", 1.0, "always", pthread="pt-c")
    end_run(tl, P, "run-p1", 0, 3.0, "pt-p")
    progress(tl, child, "run-ask-1", 20, 0)
    tl.event(child, "runtime-request.updated", f.runtime_request("rr-1", "command", "pending", 30.0), 30.0)
    tl.shell(f.shell_row(child, "Migrate DB", 1.0, parent=P, status="running", activity="running",
                         run="run-ask-1", requested=1.0, started=1.0, updated=30.0,
                         pending={"id": "rr-1", "kind": "command", "createdAt": f.iso(30.0)}))
    return tl


def overlapping_async() -> Timeline:
    """Two async children that overlap, each waking the parent when done (healthy control)."""
    tl = Timeline("Parent delegates two async children that overlap; both results delivered.")
    tl.shell(f.shell_row(P, "Fan out", 0, status="running", activity="running", run="run-p1",
                         requested=0, started=0))
    tl.subscribe(P)
    begin_run(tl, P, "run-p1", 0, "pt-p")
    task_a, a = delegate(tl, "fan-a", "Fan A", 1.0, "always", pthread="pt-a")
    task_b, b = delegate(tl, "fan-b", "Fan B", 3.0, "always", pthread="pt-b")
    end_run(tl, P, "run-p1", 0, 5.0, "pt-p", reply="Both delegated; ending the turn.")
    tl.shell(f.shell_row(P, "Fan out", 0, status="completed", run="run-p1", requested=0, started=0,
                         completed=5.0, updated=5.0))
    for n, t in enumerate(range(10, 91, 10)):
        if t <= 60:
            progress(tl, a, "run-fan-a", t, n)
        progress(tl, b, "run-fan-b", t - 1, n)
    tl.mark("both-running")
    end_run(tl, a, "run-fan-a", 1.0, 60.0, "pt-a")
    tl.shell(f.shell_row(a, "Fan A", 1.0, parent=P, status="completed", run="run-fan-a", requested=1.0,
                         started=1.0, completed=60.0, updated=60.0))
    for state, t in (("claimed", 60.2), ("delivered", 70.0)):
        tl.event(P, "subagent.updated", f.subagent(task_a, P, "run-p1", a, "Fan A", wake="always",
                                                   status="completed", started=1.0, completed=60.0,
                                                   updated=t, delivery=state), t, "run-p1")
        if state == "claimed":
            tl.event(P, "context-transfer.created", f.transfer("x-a", "subagent_result", a, P, 60.2), 60.2)
            begin_run(tl, P, "run-p2", 60.5, "pt-p", ordinal=2)
            tl.shell(f.shell_row(P, "Fan out", 0, status="running", activity="running", run="run-p2",
                                 requested=60.5, started=60.5, updated=60.5))
    end_run(tl, P, "run-p2", 60.5, 70.0, "pt-p", ordinal=2)
    tl.shell(f.shell_row(P, "Fan out", 0, status="completed", run="run-p2", requested=60.5,
                         started=60.5, completed=70.0, updated=70.0))
    end_run(tl, b, "run-fan-b", 3.0, 95.0, "pt-b")
    tl.shell(f.shell_row(b, "Fan B", 3.0, parent=P, status="completed", run="run-fan-b", requested=3.0,
                         started=3.0, completed=95.0, updated=95.0))
    tl.event(P, "subagent.updated", f.subagent(task_b, P, "run-p1", b, "Fan B", wake="always",
                                               status="completed", started=3.0, completed=95.0,
                                               delivery="claimed"), 95.2, "run-p1")
    tl.event(P, "context-transfer.created", f.transfer("x-b", "subagent_result", b, P, 95.2), 95.2)
    begin_run(tl, P, "run-p3", 95.5, "pt-p", ordinal=3)
    end_run(tl, P, "run-p3", 95.5, 99.0, "pt-p", ordinal=3)
    tl.event(P, "subagent.updated", f.subagent(task_b, P, "run-p1", b, "Fan B", wake="always",
                                               status="completed", started=3.0, completed=95.0,
                                               updated=99.0, delivery="delivered"), 99.0, "run-p1")
    tl.shell(f.shell_row(P, "Fan out", 0, status="completed", run="run-p3", requested=95.5,
                         started=95.5, completed=99.0, updated=99.0))
    return tl


SCENARIOS = {
    "seed000_serialized": lambda: seed000(parallel=False),
    "parallel_waits": lambda: seed000(parallel=True),
    "seed004_detached": lambda: seed004(fault=True),
    "seed004_healthy": lambda: seed004(fault=False),
    "slow_progress": slow_progress,
    "approval": approval,
    "overlapping_async": overlapping_async,
}


def main() -> None:
    from tests.model.frames.generate_more import MORE

    for name, build in {**SCENARIOS, **MORE}.items():
        print(build().write(name))


if __name__ == "__main__":
    main()
