"""Issue 4 acceptance: the two seed bugs, end to end through the real CLI and backend.

Seed 004: a settled parent's same-session child hangs on its next turn. Seed 000: batched
wait-mode delegations run one at a time.
"""

from __future__ import annotations

import asyncio

import pytest

from t3tui.backend.provider.faults import SETTLE_DROPS_CHILD_SUBSCRIPTION
from t3tui.backend.testing import running_backend
from t3tui.model.labels import short_id
from tests.headless.cli import Result, cli, server_args

pytestmark = pytest.mark.e2e

PARENT = "thread-parent"
CHECKIN_TIMEOUT_S = 7.0  # the stuck rule's default dwell is 10 s: timeout + 5 s must cover it


async def poll_status(args: list[str], done, timeout: float) -> Result:
    """`status --json` again and again until `done(document)` or the deadline; the last result."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        result = await cli("status", "--json", *args)
        if done(result.json()) or loop.time() >= deadline:
            return result


def child_of(document: dict) -> str:
    [child] = [t["id"] for t in document["threads"] if t["parentId"] == PARENT]
    return child


def findings(document: dict) -> list[tuple[str, str]]:
    return [(f["kind"], f["threadId"]) for f in document["findings"]]


async def test_seed_004_child_is_unanswered_and_flagged_stuck_and_nothing_else() -> None:
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]
    ) as backend:
        args = server_args(backend)
        before = await cli("status", "--json", *args)
        assert before.code == 0 and before.json()["findings"] == []
        child = child_of(before.json())

        refused = await cli("settle", PARENT, *args)
        assert refused.code == 1
        assert "refused" in refused.out and "--force" in refused.out
        assert f"({short_id(child)}) shares provider session" in refused.out
        assert backend.engine.shell_row(PARENT).settled_override != "settled"

        settled = await cli("settle", PARENT, "--force", *args)
        assert (settled.code, settled.out.split(" ·")[0]) == (0, "settled")

        loop = asyncio.get_running_loop()
        sent = loop.time()
        checkin = await cli("checkin", child, "--timeout", str(CHECKIN_TIMEOUT_S), *args)
        assert checkin.code == 1, checkin
        assert checkin.out.startswith("unanswered")

        remaining = sent + CHECKIN_TIMEOUT_S + 5 - loop.time()
        status = await poll_status(args, lambda d: bool(d["findings"]), remaining)
        assert findings(status.json()) == [("stuck", child)]
        assert status.code == 1
        rows = {t["id"]: t for t in status.json()["threads"]}
        assert rows[child]["state"] == "stuck"
        assert rows[PARENT]["state"] != "stuck" and rows[PARENT]["settled"] is True


async def test_seed_004_status_tells_the_story_by_name_and_raw_keeps_the_evidence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # piped: nothing is cut
    async with running_backend(
        scenario="settle-unsubscribe", faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]
    ) as backend:
        args = server_args(backend)
        child = child_of((await cli("status", "--json", *args)).json())
        assert (await cli("settle", PARENT, "--force", *args)).code == 0
        await cli("checkin", child, "--timeout", "3", *args)
        stuck = await poll_status(args, lambda d: bool(d["findings"]), 20)
        assert findings(stuck.json()) == [("stuck", child)]

        told = await cli("status", *args)
        raw = await cli("status", "--raw", *args)
        again = await cli("status", "--json", *args)
    assert (told.code, raw.code) == (1, 1)
    lines = told.out.splitlines()
    start = lines.index("FINDINGS (1)") + 1
    head, sentence, *timeline = lines[start:]
    assert head.startswith(f"⚑ stuck  Same-session child  {short_id(child)}  "
                           "session-detached-by-other")
    assert sentence.startswith("  provider session ") and " was detached by " in sentence
    assert "has shown no progress for" in sentence
    # the moments of the evidence, the settling parent by its title and short id
    assert any(line.endswith(f"its provider session was detached by “Seed 004 parent” "
                             f"({PARENT}) (Thread settled)") for line in timeline), timeline
    assert any(line.endswith("the run started") for line in timeline), timeline
    assert "=" not in "\n".join(timeline) and "%3A" not in told.out
    # --raw: today's evidence, key=value
    raw_lines = raw.out.splitlines()
    evidence = "\n".join(raw_lines[raw_lines.index("FINDINGS (1)") + 3:])
    assert f"detachedByThreadId={PARENT}" in evidence and "detachReason=Thread settled." in evidence
    assert "the run started" not in raw.out
    # the JSON is the same document either way
    assert [f["rule"] for f in again.json()["findings"]] == ["session-detached-by-other"]


async def test_seed_004_control_without_the_fault_the_child_answers() -> None:
    async with running_backend(scenario="settle-unsubscribe") as backend:
        args = server_args(backend)
        child = child_of((await cli("status", "--json", *args)).json())
        assert (await cli("settle", PARENT, "--force", *args)).code == 0
        checkin = await cli("checkin", child, "--timeout", "10", "--json", *args)
        assert checkin.code == 0, checkin
        assert checkin.json()["verdict"] == "answered"
        assert checkin.json()["latencySeconds"] is not None
        status = await cli("status", "--json", *args)
        assert (status.code, status.json()["findings"]) == (0, [])


PROBE = "thread-probe"
PROBE_TIMINGS = {"timeoutMs": 3000, "sleep": 4}  # the rule tolerates 2 s of overlap
PARALLEL_TIMINGS = {"timeoutMs": 5000, "sleep": 6}


async def test_seed_000_serial_dispatch_flags_serialized_wait_on_the_parent() -> None:
    async with running_backend(dispatch="serial") as backend:
        await backend.engine.run_scenario("parallel-probe", overrides=PROBE_TIMINGS)
        status = await poll_status(server_args(backend), lambda d: bool(d["findings"]), 15)
        assert findings(status.json()) == [("serialized_wait", PROBE)]
        assert status.json()["findings"][0]["rule"] == "serial-arrival"
        assert status.code == 1


async def test_seed_000_parallel_dispatch_flags_nothing() -> None:
    async with running_backend(dispatch="parallel") as backend:
        # a wider margin than the serial case: a loaded machine may delay B's arrival
        await backend.engine.run_scenario("parallel-probe", overrides=PARALLEL_TIMINGS)

        def waits_returned(document: dict) -> bool:
            probe = next(t for t in document["threads"] if t["id"] == PROBE)
            return bool(document["findings"]) or probe["runStatus"] == "completed"

        status = await poll_status(server_args(backend), waits_returned, 15)
        assert status.json()["findings"] == []
        assert status.code == 0
        assert len([t for t in status.json()["threads"] if t["parentId"] == PROBE]) == 2
