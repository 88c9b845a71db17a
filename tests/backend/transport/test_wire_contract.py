"""What the backend sends passes T3's V2 contract, checked frame by frame on the socket.

Every frame of the seed flows (seed 000 in both dispatch modes, seed 004 with and without the
fault) and of the demo driven by the real client (status, settle, check-in, interrupt,
getThreadProjection) is recorded off the websocket and checked against the strict contract
models (`t3tui.protocol.contract`): every snapshot, projection, event, stream item and Exit.
A last test shows the check rejects the shapes the backend used to send.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

from t3tui.backend.auth import utc_now
from t3tui.backend.provider import SETTLE_DROPS_CHILD_SUBSCRIPTION
from t3tui.backend.testing import running_backend, wait_until
from t3tui.client.backoff import Backoff
from t3tui.client.checkin import run_checkin
from t3tui.client.outcome import Accepted, new_command_id
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.model import Supervisor
from t3tui.model.rows import ThreadRow
from t3tui.protocol import RunInterrupt, RuntimeRequestRespond, ThreadSettle
from t3tui.protocol.contract import ThreadProjection, WireCheck, violations
from tests.backend.transport.rawclient import RawRpc
from tests.backend.transport.test_seeds_over_socket import (
    DISPATCH,
    LAUNCH,
    PROJECTION,
    launch,
    run_probe,
    settle_parent_then_check_in,
)
from tests.backend.transport.wiretap import WireTap, wire_tap

pytestmark = pytest.mark.e2e

FAST_DEMO = {"short": 0.3, "sleep": 0.6, "timeoutMs": 200, "ticks": 600}
# What the recordings must have covered, so a flow that silently stopped early fails here.
SEED_KINDS = (
    "orchestration.subscribeShell snapshot",
    "orchestration.subscribeShell thread.updated",
    "orchestration.getThreadProjection result",
    "orchestration.launchThread result",
    "orchestration.dispatchCommand result",
    "orchestration.subscribeThread event provider-thread.updated",
    "orchestration.subscribeThread event provider-turn.updated",
    "orchestration.subscribeThread event provider-session.attached",
    "orchestration.subscribeThread event turn-item.updated dynamic_tool",
    "orchestration.subscribeThread event turn-item.updated assistant_message",
    "orchestration.subscribeThread event turn-item.updated user_message",
    "orchestration.subscribeThread event checkpoint.captured",
    "orchestration.subscribeThread event subagent.updated",
    "payload orchestration.dispatchCommand",
)
DEMO_KINDS = (
    "orchestration.subscribeShell snapshot",
    "orchestration.subscribeThread snapshot",
    "orchestration.subscribeThread event runtime-request.updated",
    "orchestration.subscribeThread event thread.settled",
    "orchestration.subscribeThread event provider-session.detached",
    "orchestration.subscribeThread event context-transfer.created",
    "orchestration.subscribeThread event checkpoint-scope.created",
    "orchestration.subscribeThread event turn-item.updated command_execution",
    "orchestration.subscribeThread event turn-item.updated approval_request",
    "orchestration.getThreadProjection result",
    "server Pong",
)


def assert_clean(tap: WireTap, kinds: tuple[str, ...]) -> None:
    problems = tap.problems
    assert not problems, f"{len(problems)} contract violations, first ones:\n" + "\n".join(
        problems[:15]
    )
    counts = tap.counts()
    missing = [k for k in kinds if not counts.get(k)]
    assert not missing, f"the recording never saw {missing}; saw {sorted(counts)}"


async def test_seed_flows_send_only_contract_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    with wire_tap(monkeypatch) as tap:
        for dispatch in ("serial", "parallel"):
            await run_probe(dispatch)
        for faults in ([SETTLE_DROPS_CHILD_SUBSCRIPTION], []):
            await settle_parent_then_check_in(faults)
    assert tap.frames > 100
    assert_clean(tap, SEED_KINDS)


def _row(sup: Supervisor, thread_id: str) -> ThreadRow | None:
    return sup.row(thread_id, utc_now())


def _rows(sup: Supervisor) -> dict[str, ThreadRow]:
    return {row.id: row for row in sup.view(utc_now()).rows}


async def _demo_actions(session: Session, sup: Supervisor) -> None:
    """What a user does in the demo: approve, settle, check in, interrupt, open projections."""
    deploy = await wait_until(
        lambda: next((r for r in _rows(sup).values() if r.pending_request), None),
        timeout=30, what="the deploy child asks for approval")
    assert deploy.pending_request is not None
    approve = RuntimeRequestRespond(command_id=new_command_id(), thread_id=deploy.id,
                                    request_id=deploy.pending_request.id, decision="accept")
    assert isinstance(await session.dispatch(approve), Accepted)
    await wait_until(lambda: (r := _row(sup, "thread-settle-me")) and r.children
                     and r.active_run_id is None, timeout=30, what="settle-me finishes")
    settle = ThreadSettle(command_id=new_command_id(), thread_id="thread-settle-me")
    assert isinstance(await session.dispatch(settle), Accepted)
    child = _row(sup, "thread-settle-me").children[0]  # type: ignore[union-attr]
    await run_checkin(session, child, text="Reply PONG", timeout_s=5)
    runner = await wait_until(lambda: (r := _row(sup, "thread-long-runner")) and r.active_run_id
                              and r, timeout=30, what="the long runner runs")
    interrupt = RunInterrupt(command_id=new_command_id(), thread_id=runner.id,
                             run_id=runner.active_run_id, reason="wire contract test")
    assert isinstance(await session.dispatch(interrupt), Accepted)
    await wait_until(lambda: _row(sup, runner.id).active_run_id is None,  # type: ignore[union-attr]
                     timeout=30, what="the interrupt ends the long run")
    for thread_id in _rows(sup):
        await session.call("orchestration.getThreadProjection", {"threadId": thread_id})


async def test_demo_with_client_actions_sends_only_contract_shapes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with wire_tap(monkeypatch) as tap:
        async with running_backend(scenario="demo", scenario_params=FAST_DEMO,
                                   scenario_in_background=True) as backend:
            sup = Supervisor()
            session = Session(Target(backend.url, Secret(backend.token)), sup,
                              backoff=Backoff.fast(), ping_interval=0.2)
            task = asyncio.create_task(session.run())
            try:
                await session.wait_synchronized(10)
                assert backend.scenario_task is not None
                await asyncio.wait_for(asyncio.shield(backend.scenario_task), 60)
                await _demo_actions(session, sup)
            finally:
                await session.stop()
                await asyncio.gather(task, return_exceptions=True)
    assert_clean(tap, DEMO_KINDS)


def _downgraded(projection: dict[str, Any], how: str) -> dict[str, Any]:
    """The projection in one of the shapes the backend sent before the fix."""
    old = copy.deepcopy(projection)
    if how == "string native refs":
        for pthread in old["providerThreads"]:
            pthread["nativeThreadRef"] = pthread["nativeThreadRef"]["nativeId"]
    elif how == "sparse capabilities":
        for session in old["providerSessions"]:
            session["capabilities"]["threads"] = {}
    elif how == "old checkpoint shape":
        for checkpoint in old["checkpoints"]:
            checkpoint["createdAt"] = checkpoint.pop("capturedAt")
            checkpoint["scopeId"] = None
    return old


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("string native refs", "nativeThreadRef: Input should be a valid dictionary"),
        ("sparse capabilities", "capabilities.threads.canCreateEmptyThread: Field required"),
        ("old checkpoint shape", "capturedAt: Field required"),
    ],
)
async def test_the_check_rejects_the_old_shapes(how: str, expected: str) -> None:
    async with (
        running_backend() as backend,
        await RawRpc.open(backend.url, backend.token) as client,
    ):
        await client.ok(LAUNCH, launch("plain", "Reply HELLO"))
        await wait_until(lambda: backend.engine.state("plain").values("checkpoints"),
                         timeout=15, what="the turn's checkpoint")
        projection = await client.ok(PROJECTION, {"threadId": "plain"})
    assert violations(ThreadProjection, projection) == []
    old = _downgraded(projection, how)
    found = violations(ThreadProjection, old)
    assert any(expected in problem for problem in found), found
    # the same through a recorded conversation, as the flows above are checked
    check = WireCheck()
    check.client(json.dumps({"_tag": "Request", "id": "1", "tag": PROJECTION,
                             "payload": {"threadId": "plain"}, "headers": []}))
    check.server(json.dumps({"_tag": "Exit", "requestId": "1",
                             "exit": {"_tag": "Success", "value": old}}))
    assert check.counts[f"{PROJECTION} result"] == 1
    assert any(expected in problem for problem in check.problems), check.problems


def test_the_check_rejects_envelope_mistakes() -> None:
    check = WireCheck()
    check.client('{"_tag":"Request","id":"req-7","tag":"orchestration.subscribeShell",'
                 '"payload":{},"headers":[]}')
    check.client('{"_tag":"Request","id":"8","tag":"orchestration.subscribeShell",'
                 '"payload":{},"headers":[]}')
    check.server('{"_tag":"Exit","requestId":"8","exit":{"_tag":"Success"}}')
    check.server('{"_tag":"Chunk","requestId":"8","values":[{"kind":"teleported"}]}')
    problems = "\n".join(check.problems)
    assert "client Request: Request.id: String should match pattern" in problems
    assert "exit.Success.value: Field required" in problems
    assert "a stream's success value must be null" in problems
    assert "orchestration.subscribeShell teleported" in problems


async def test_a_command_outside_the_contract_is_refused_and_changes_nothing() -> None:
    async with (
        running_backend() as backend,
        await RawRpc.open(backend.url, backend.token) as client,
    ):
        bad_launch = {**launch("odd", "Reply HI"), "runtimeMode": "yolo"}
        reply = await client.call(LAUNCH, bad_launch)
        assert reply["_tag"] == "Failure"
        [cause] = reply["cause"]
        assert cause["_tag"] == "Die" and "runtimeMode" in cause["defect"]
        await client.ok(LAUNCH, launch("plain", "Reply HI"))  # a valid one still works
        create = {"type": "thread.create", "commandId": "c-odd", "createdBy": "robot",
                  "creationSource": "web", "threadId": "odd", "projectId": "project-1",
                  "title": "Odd", "modelSelection": {"instanceId": "codex", "model": "gpt-5"},
                  "runtimeMode": "full-access", "interactionMode": "default", "branch": None,
                  "worktreePath": None}
        reply = await client.call(DISPATCH, create)
        [cause] = reply["cause"]
        assert cause["_tag"] == "Die"
        assert cause["defect"].startswith("invalid thread.create command: ")
        assert "createdBy" in cause["defect"]
        assert backend.engine.shell_row_wire("odd") is None
        assert not [e for e in backend.engine.events_after(0) if e.wire["threadId"] == "odd"]
