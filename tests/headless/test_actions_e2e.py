"""Issue 10 actions through the real CLI against the reference backend: stop a subtree,
forward an undelivered result (the exact text first), dispose / acknowledge a delivery with
the server's refusal verbatim."""

from __future__ import annotations

import asyncio

import pytest

from t3tui.backend.testing import running_backend, wait_until
from tests.headless.cli import cli, server_args

pytestmark = pytest.mark.e2e


def rows(doc: dict) -> dict[str, dict]:
    return {t["id"]: t for t in doc["threads"]}


async def test_interrupt_tree_stops_children_deepest_first_then_the_parent() -> None:
    # the parent is blocked in a wait on its child; twins' parent is done, its children run
    async with running_backend(scenario="duplicate-delegation") as backend:
        args = server_args(backend)
        before = rows((await cli("status", "--json", *args)).json())
        [child] = [t for t in before.values() if t["parentId"] == "thread-retry"]
        assert before["thread-retry"]["activeRunId"] and child["activeRunId"]
        done = await cli("interrupt", "thread-retry", "--tree", *args)
        assert done.code == 0, done
        lines = done.out.splitlines()
        assert lines[0].split()[0] == "stopped" and child["title"] in lines[0]  # deepest first
        # the parent's wait returned when its child stopped: it is stopped, or it finished first
        assert lines[1].split()[0] in ("stopped", "ended") and "Audit, delegated twice" in lines[1]
        assert lines[-1].startswith("stopped 2 of 2")
        after = rows((await cli("status", "--json", *args)).json())
        assert after[child["id"]]["activeRunId"] is None
        assert after["thread-retry"]["activeRunId"] is None
        # the twins (another subtree) are untouched
        twins = [t for t in after.values() if t["parentId"] == "thread-twins"]
        assert len(twins) == 2 and all(t["activeRunId"] for t in twins)

        nothing = await cli("interrupt", "thread-retry", "--tree", *args)
        assert nothing.code == 1 and nothing.out.startswith("nothing to interrupt")


async def test_forward_shows_the_exact_text_then_sends_it_and_acknowledge_and_dispose() -> None:
    params = {"step": 2}
    async with running_backend(scenario="pending-delivery", scenario_params=params) as backend:
        args = server_args(backend)

        def pending() -> bool:
            subs = backend.engine.projection("thread-waves").subagents
            return any(r.title == "Wave three" and r.completion_delivery is not None
                       and r.completion_delivery.state == "pending" for r in subs)
        await wait_until(pending, timeout=20, what="wave three pending")

        refused = await cli("forward", "wave-3", *args)  # no terminal to ask on, no --yes
        assert refused.code == 1 and "confirm with --yes" in refused.err
        assert "> WAVE_THREE: 17 files checked" in refused.out

        sent = await cli("forward", "wave-3", "--yes", *args)
        assert sent.code == 0, sent
        text = sent.out.split(":\n", 1)[1].rsplit("\nforwarded to", 1)[0]
        assert text.startswith('Result of the delegated task "Wave three" (taskId node:delegated-task:')
        assert text.endswith("because it was not delivered to you.\n\n> WAVE_THREE: 17 files checked")
        messages = backend.engine.projection("thread-waves").messages
        assert any(m.role == "user" and m.text == text for m in messages)

        acked = await cli("acknowledge", "wave-3", *args)
        assert acked.code == 0 and acked.out.startswith("delivery acknowledged"), acked
        again = await cli("forward", "wave-3", "--yes", *args)
        assert again.code == 1 and "already acknowledged" in again.err

        # the server decides: wave one was read by its parent, so dispose is refused, verbatim
        told = await cli("dispose", "wave-1", *args)
        assert told.code == 1, told
        assert "server refused: Task node:delegated-task:" in told.out
        assert "completion delivery is already acknowledged." in told.out


async def test_dispose_an_orphans_delivery_and_forward_refuses_a_running_child() -> None:
    async with running_backend(scenario="orphaned-children") as backend:
        args = server_args(backend)
        running = await cli("forward", "orphan-crawl", "--yes", *args)
        assert running.code == 1 and "has not published a result yet" in running.err
        await asyncio.sleep(0)  # the cohort was stopped: the deliveries are already disposed
        already = await cli("dispose", "orphan-crawl", *args)
        assert already.code == 1 and "server refused: " in already.out
        assert "completion delivery is already disposed." in already.out
        early = await cli("acknowledge", "orphan-index", *args)
        assert early.code == 1 and "has no result to acknowledge (status running)." in early.out
