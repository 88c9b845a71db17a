"""`watch --act` evaluates its policies again when what they judge changed (a finding
appeared or cleared, the connection, the switch) and otherwise once a second, not at every
look (issue 25: `watch` CPU; an evaluation reads every finding of every thread). A stream of
many small batches (the soak's replay server, a real websocket server in a child process),
whose 2 % of threads with no progress keep their findings, is watched in-process with the
CLI's own arguments and policies."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from itertools import pairwise
from pathlib import Path

import pytest

from benchmarks.procs import ChildServer
from t3tui.backend.testing import wait_until
from t3tui.cli import build_parser
from t3tui.client.secret import Secret, Target
from t3tui.client.session import Session
from t3tui.headless.acting import Acting, policies_from
from t3tui.headless.watch import Printer
from t3tui.model import Supervisor
from t3tui.policy.cadence import EVALUATE_S
from tests.headless.watching import watch_in_process

pytestmark = pytest.mark.e2e

THREADS, RATE, ITEMS = 100, 300.0, 600  # two seconds of small batches on many streams
POLICY = '[[policy]]\nwhen = "no-progress"\nafter = "1h"\ndo = "checkin"\n'


@pytest.fixture
def policies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "policies.toml").write_text(POLICY)
    return tmp_path / "policies.toml"


@contextlib.asynccontextmanager
async def acting_on(server: ChildServer, policies: Path,
                    note: Callable[[Acting], object]) -> AsyncIterator[None]:
    """`watch --act --dry-run` of `server`, in process with the CLI's own arguments, once
    synchronized; `note(acting)` is called at each evaluation of its policies."""
    async with server:
        args = build_parser().parse_args(
            ["watch", "--act", "--dry-run", "--ndjson", "--no-provider-records",
             "--policy", str(policies), "--url", server.url])
        sup = Supervisor()
        session = Session(Target(server.url, Secret("bench-token")), sup)
        printer = Printer(ndjson=True)
        acting = Acting(args, session, sup, printer.policy, *policies_from(args))
        evaluate = acting.engine.tick

        def noted(*a, **k):  # type: ignore[no-untyped-def]
            note(acting)
            return evaluate(*a, **k)

        acting.engine.tick = noted  # type: ignore[method-assign]
        async with watch_in_process(session, sup, printer, acting=acting):
            yield


async def test_watch_act_evaluates_again_on_news_or_once_a_second(policies: Path) -> None:
    server = ChildServer("benchmarks.replay_server", "--threads", str(THREADS), "--events",
                         str(ITEMS), "--item-ms", str(1000 / RATE), "--rate", str(RATE),
                         "--wait-go")
    evaluations: list[tuple[float, frozenset]] = []

    def held(acting: Acting) -> None:
        findings = frozenset(f.key for fs in acting.engine._findings.values() for f in fs)
        evaluations.append((time.monotonic(), findings))

    async with acting_on(server, policies, held):
        await wait_until(lambda: evaluations, timeout=10)
        first = len(evaluations)
        await server.send("go")
        await server.result(60)  # every item sent and acked
        done = len(evaluations)
        await wait_until(lambda: len(evaluations) >= done + 2, timeout=10)  # and after it
    looked = evaluations[first - 1:]
    assert looked[-1][1], "no finding was held: the policies had nothing to judge"
    early = [(round(b - a, 3), len(old), len(new)) for (a, old), (b, new)
             in pairwise(looked) if b - a < EVALUATE_S * 0.99 and old == new]
    assert not early, (
        f"{len(looked)} evaluations; {len(early)} came within {EVALUATE_S} s of the last with "
        f"the same findings held (gap s, held before, held after): {early[:5]}")


async def test_watch_act_evaluates_once_a_second_though_batches_come_just_under_it(
        policies: Path) -> None:
    """A batch every 0.95 s wakes the loop just before an evaluation is due: the next look
    must still come when it is due, not a wait of a whole tick after that batch (~1.9 s)."""
    server = ChildServer("benchmarks.replay_server", "--threads", "20", "--events", "8",
                         "--item-ms", "950", "--rate", str(1 / 0.95), "--wait-go")
    evaluations: list[float] = []
    async with acting_on(server, policies, lambda _: evaluations.append(time.monotonic())), \
            stalls_of_this_loop() as stalls:
        await wait_until(lambda: evaluations, timeout=10)
        await server.send("go")
        await server.result(60)  # the last batch, ~7.6 s on
    # late: later than due by more than 0.6 s beyond what this process could not run at all
    # (a loaded machine stalls the whole loop; the watch cannot look while it is stalled)
    late = [(round(b - a, 2), round(stalls.within(a, b), 2)) for a, b in pairwise(evaluations)
            if b - a >= EVALUATE_S + 0.6 + stalls.within(a, b)]
    assert len(evaluations) >= 6 and not late, (
        f"gaps between evaluations (s): {[round(b - a, 2) for a, b in pairwise(evaluations)]}:"
        f" late ones (gap, the loop's own stall meanwhile): {late}")


class LoopStalls:
    """How long this event loop could not run: each oversleep of a 50 ms probe, at its end."""

    PROBE_S = 0.05

    def __init__(self) -> None:
        self.seen: list[tuple[float, float]] = []

    def within(self, start: float, end: float) -> float:
        """The longest stall that overlapped (start, end]."""
        return max((stall for at, stall in self.seen
                    if at > start and at - stall - self.PROBE_S < end), default=0.0)

    async def probe(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(self.PROBE_S)
            after = time.monotonic()
            self.seen.append((after, max(0.0, after - before - self.PROBE_S)))


@contextlib.asynccontextmanager
async def stalls_of_this_loop() -> AsyncIterator[LoopStalls]:
    stalls = LoopStalls()
    task = asyncio.create_task(stalls.probe())
    try:
        yield stalls
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
