"""Stopping a tree includes its runaways (T3 #5587: a run that ended interrupted while its
provider turn runs on): `t3tui interrupt --tree` interrupts the active runs deepest first,
then force-stops each runaway, unless a thread that still runs shares its provider session
(a forced stop would take that thread's session too): then it sends nothing for it and the
summary says why. The reference backend's `runaway-provider` scenario (a parent and its
delegated child in one Codex session), real agent processes, the default dwells."""

from __future__ import annotations

import pytest

from t3tui.backend.testing import RunningBackend, pid_alive, wait_until
from tests.headless.cli import cli, server_args
from tests.headless.test_commands_e2e import active_run
from tests.headless.test_second_wave_e2e import now, rule_on
from tests.runaway import CHILD, PARENT, RULE, watched_runaway

pytestmark = pytest.mark.e2e


def flat(text: str) -> str:
    return " ".join(text.split())


def live_sessions(backend: RunningBackend, thread: str) -> set[str]:
    return {s.id for s in backend.engine.projection(thread).provider_sessions
            if s.status not in ("stopped", "error")}


async def test_stop_the_tree_force_stops_a_runaway_descendant() -> None:
    async with watched_runaway(600 + 37.25) as run:  # a sleep length no other test uses
        backend, agents, session, sup, found = (
            run.backend, run.agents, run.session, run.sup, run.found)
        assert active_run(backend, PARENT) is None and active_run(backend, found.thread_id) is None

        tree = await cli("interrupt", PARENT, "--tree", *server_args(backend))
        assert tree.code == 0, tree
        out = flat(tree.out)
        assert f"forced {CHILD} its provider ran on after run {found.evidence['runId']}" in out, out
        assert "stopped 1 of 1" in out, out
        await wait_until(lambda: not any(pid_alive(pid) for pid in agents),
                         timeout=15, what="the runaway's processes end")
        cleared = await session.wait_until(
            lambda: rule_on(sup.view(now()), RULE) is None or None, 10)
        assert cleared, "the finding did not clear"


async def test_a_runaway_sharing_its_session_with_a_running_parent_is_not_forced() -> None:
    sleep = 600 + 31.25
    async with watched_runaway(sleep, also=[sleep + 1]) as run:  # the parent's own sleep too
        backend, agents, session, sup = run.backend, run.agents, run.session, run.sup
        child = run.found.thread_id
        await backend.engine.dispatch({  # the parent runs again, in the child's session
            "type": "message.dispatch", "commandId": "c-again", "createdBy": "user",
            "creationSource": "web", "threadId": PARENT, "messageId": "m-again",
            "text": f"Run `sleep {sleep + 1:g}`, then reply DONE", "attachments": [],
            "dispatchMode": {"type": "start_immediately"}})
        parent_run = await wait_until(lambda: active_run(backend, PARENT), timeout=15,
                                      what="the parent running again")
        assert live_sessions(backend, PARENT) & live_sessions(backend, child)
        await session.wait_until(
            lambda: (r := sup.view(now()).row(PARENT)) and r.active_run_id == parent_run, 10)

        tree = await cli("interrupt", child, "--tree", *server_args(backend))
        assert tree.code == 1, tree
        out = flat(tree.out)
        assert (f"not sent {CHILD} its provider session is shared with “Stop my child (its "
                "provider runs on)”, which still runs") in out, out
        assert "stopped 0 of 1" in out, out
        assert active_run(backend, PARENT) == parent_run  # its session was left alone
        assert live_sessions(backend, child), "the child's session was detached"
        assert all(pid_alive(pid) for pid in agents)
