"""The app's policies evaluate on news, else once a second, as `watch --act` does (issue 25:
an evaluation reads every finding held; the app's frames come up to 60 a second under load).
Pilot, policies on, a steady stream of many small batches (the soak's replay server, a real
websocket server in a child process) whose 2 % of threads with no progress keep their
findings: between two evaluations with the same findings held, a second passes."""

from __future__ import annotations

import time
from itertools import pairwise
from pathlib import Path

import pytest

from benchmarks.procs import ChildServer
from t3tui.backend.provider.faults import SETTLE_DROPS_CHILD_SUBSCRIPTION
from t3tui.backend.testing import running_backend
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.model import DetectorConfig
from t3tui.policy import Decision, parse_text
from t3tui.policy.cadence import EVALUATE_S
from t3tui.proof.homes import ProofHomes
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.sources.source import LiveSource
from tests.backend.transport.commands import message, settle
from tests.proof.helpers import PARENT, child_of
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e

THREADS, RATE, ITEMS = 100, 300.0, 900  # three seconds of small batches on many streams
POLICY = '[[policy]]\nwhen = "no-progress"\nafter = "1h"\ndo = "checkin"\n'
UNHEARD = '[[policy]]\nwhen = "provider-finished-unheard"\nafter = "0s"\ndo = ["interrupt", "forward"]\n'


async def test_the_app_evaluates_its_policies_on_news_or_once_a_second(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    server = ChildServer("benchmarks.replay_server", "--threads", str(THREADS), "--events",
                         str(ITEMS), "--item-ms", str(1000 / RATE), "--rate", str(RATE),
                         "--wait-go")
    async with server:
        app = SupervisorApp(LiveSource(Target(server.url, Secret("bench-token")),
                                       ping_interval=60.0))
        app.enable_policies(parse_text(POLICY, "policies.toml"), on=True, dry_run=True)
        engine = app.policy_engine
        assert engine is not None
        evaluations: list[tuple[float, frozenset]] = []
        evaluate = engine.tick

        def noted(*a, **k):  # type: ignore[no-untyped-def]
            held = frozenset(f.key for fs in engine._findings.values() for f in fs)
            evaluations.append((time.monotonic(), held))
            return evaluate(*a, **k)

        engine.tick = noted  # type: ignore[method-assign]
        frames: list[float] = []
        frame = app.renderer._frame

        def counted() -> None:
            frames.append(time.monotonic())
            frame()

        app.renderer._frame = counted  # type: ignore[method-assign]
        async with app.run_test(size=(160, 48)):
            await until(lambda: app.view is not None and app.view.synchronized, timeout=60,
                        what="a synchronized view")
            await until(lambda: evaluations, what="a first evaluation")
            first, started = len(evaluations), len(frames)
            await server.send("go")
            await server.result(60)  # every item sent and acked
            done = len(evaluations)
            await until(lambda: len(evaluations) >= done + 2, what="two evaluations after it")
            framed = len(frames) - started
    looked = evaluations[first - 1:]
    assert looked[-1][1], "no finding was held: the policies had nothing to judge"
    seconds = looked[-1][0] - looked[0][0]
    assert framed > 3 * (seconds / EVALUATE_S + 1), f"{framed} frames in {seconds:.1f} s: no load"
    early = [(round(b - a, 3), len(old), len(new)) for (a, old), (b, new)
             in pairwise(looked) if b - a < EVALUATE_S * 0.99 and old == new]
    assert not early, (
        f"{len(looked)} evaluations in {framed} frames; {len(early)} came within {EVALUATE_S} s "
        f"of the last with the same findings held (gap s, held before, held after): {early[:5]}")


async def test_a_finding_that_appears_is_judged_in_the_frame_that_shows_it() -> None:
    """News is not held back for the second: the look (`_show`) whose rows first hold the
    finding evaluates, and the policy about it decides there (seed 004, a dry run)."""
    async with running_backend(scenario="settle-unsubscribe",
                               faults=[SETTLE_DROPS_CHILD_SUBSCRIPTION]) as backend:
        source = LiveSource(Target(backend.url, Secret(backend.token)),
                            config=DetectorConfig(provider_unheard_dwell_s=1.0),
                            backoff=Backoff.fast(), ping_interval=1.0,
                            proof=ProofHomes(backend.data_dir / "codex-home", None))
        app = SupervisorApp(source, config=TuiConfig(bell=False))
        app.enable_policies(parse_text(UNHEARD, "policies.toml"), on=True, dry_run=True)
        engine = app.policy_engine
        assert engine is not None
        child = child_of(backend)
        looks: list[tuple[bool, bool]] = []  # per look: the finding held, policy 1 decided
        step, evaluate = app.policies.step, engine.tick
        decided: list[Decision] = []

        def evaluated(*a, **k):  # type: ignore[no-untyped-def]
            decided.extend(decisions := evaluate(*a, **k))
            return decisions

        def looked(*a, **k):  # type: ignore[no-untyped-def]
            decided.clear()
            step(*a, **k)
            held = any(f.rule == "provider-finished-unheard"
                       for f in engine._findings.get(child, ()))
            looks.append((held, any(d.policy == 1 and d.thread_id == child for d in decided)))

        engine.tick = evaluated  # type: ignore[method-assign]

        app.policies.step = looked  # type: ignore[method-assign]
        async with app.run_test(size=(160, 48)):
            await until(lambda: app.view is not None and app.view.synchronized, what="a view")
            await until(lambda: len(looks) > 5, what="looks before the finding")
            await backend.engine.dispatch(settle(PARENT))
            await backend.engine.dispatch(message(child, "Reply PONG"))
            await until(lambda: any(held for held, _ in looks), timeout=60,
                        what="the finding held")
    first = next(i for i, (held, _) in enumerate(looks) if held)
    assert first > 5 and not looks[first - 1][0], looks[first - 1:first + 1]
    assert looks[first][1], (
        f"look {first} first held the finding; policy 1 decided at look "
        f"{next((i for i, (_, d) in enumerate(looks) if d), None)}")
