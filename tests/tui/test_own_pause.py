"""The app just resumed from a pause of its own (a laptop's suspend, SIGSTOP) shows no finding
whose only evidence is that pause. Found leaving the app alone: a row "stuck" (no progress)
for a second after a resume, a dwell counted across a pause in which nothing could be read.
Over a real session against the reference backend; the pause is the app's clocks jumping
(wall and monotonic alike) while the stream delivered all along: any finding in the hold is
the pause's alone."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from t3tui.backend.testing import running_backend
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.client.state import Live, Reconnecting
from t3tui.model import DetectorConfig
from t3tui.policy.resume import FRESH_S, GAP_S
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.panes import Banner, StatusBar
from tests.headless.test_commands_e2e import launch
from tests.link import Link
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e

NO_PROGRESS_S = 30.0


class Clocks:
    """Wall and monotonic time, both moved on by whatever pause the test says happened."""

    def __init__(self) -> None:
        self.offset, self.looks, self.ticks = 0.0, 0, 0

    def wall(self) -> datetime:  # read at every derivation of the rows (a look), and more
        self.looks += 1
        return datetime.now(UTC) + timedelta(seconds=self.offset)

    def monotonic(self) -> float:  # read by the pause clock (the fix) once per derivation
        self.ticks += 1
        return time.monotonic() + self.offset


class StillClocks(Clocks):
    """Monotonic time that moves only by the test's offsets: the hold ends when the test
    says, however slowly a loaded loop gets through it."""

    def __init__(self) -> None:
        super().__init__()
        self.start = time.monotonic()

    def monotonic(self) -> float:
        self.ticks += 1
        return self.start + self.offset


def clocked_app(url: str, token: str, clocks: Clocks) -> SupervisorApp:
    """The app on `url`, its wall clock and its derivations' monotonic clock the test's."""
    source = LiveSource(Target(url, Secret(token)),
                        config=DetectorConfig(no_progress_s=NO_PROGRESS_S),
                        backoff=Backoff.fast(), ping_interval=1.0)
    app = SupervisorApp(source, config=TuiConfig(bell=False, toast=False), clock=clocks.wall)
    app.renderer._derive_clock.monotonic = clocks.monotonic
    return app


async def test_after_its_own_pause_the_app_shows_no_finding_made_of_the_pause() -> None:
    clocks = Clocks()
    async with running_backend() as backend:
        app = clocked_app(backend.url, backend.token, clocks)
        async with app.run_test(size=(140, 40)) as pilot:
            thread = await launch(backend, "Hang", title="Hangs")

            def shown():
                row = app.view.by_id.get(thread) if app.view is not None else None
                return row if row is not None and row.state == "running" else None

            await until(shown, what="the thread running")
            await until(lambda: clocks.looks >= 2, what="the app looking at the time")
            clocks.offset += NO_PROGRESS_S * 2  # the app was paused, twice the rule's dwell
            looks, seen = clocks.looks, []
            # three ticks of the app after the resume (3.5 s, longer on a loaded machine), all
            # inside the hold that follows it (FRESH_S), after which the dwell is evidence
            start = time.monotonic()
            while time.monotonic() < start + FRESH_S - 1 and (
                    time.monotonic() < start + 3.5 or clocks.looks < looks + 3):
                row = app.view.by_id.get(thread)
                seen.append([f.rule for f in row.findings] + [row.state]
                            + ["-stale"] * app.tree.has_class("-stale"))
                await pilot.pause(0.1)
            assert clocks.looks >= looks + 3, "the app did not look at the time"
            assert not any("no-progress" in s for s in seen), seen
            # the rows are from before the pause: drawn stale while the hold lasts
            assert any("-stale" in s for s in seen), seen
            # once the stream could have delivered (the hold ends), the dwell is evidence
            for _ in range(int(FRESH_S // (GAP_S / 2)) + 1):
                clocks.offset += GAP_S / 2
                ticks = clocks.ticks
                await until(lambda n=ticks: clocks.ticks > n, what="a derivation")
            found = await until(lambda: [f.rule for f in app.view.by_id[thread].findings
                                         if f.rule == "no-progress"], what="the finding")
            assert found == ["no-progress"]
            await until(lambda: not app.tree.has_class("-stale"), what="the rows current")


async def test_after_a_pause_that_killed_its_socket_rows_are_stale_until_the_resumed_streams_sync(
        ) -> None:
    """The pause outlived the socket (a laptop's network across a suspend): the app finds it
    dead and cannot reconnect for longer than the hold. Until the resumed streams synchronize
    the rows are from before the pause: marked stale, and no finding is made of the pause;
    once they have, a finding that is real (the thread hung all along) is raised."""
    clocks = Clocks()
    async with running_backend() as backend, Link(backend.port).running() as link:
        app = clocked_app(link.url, backend.token, clocks)
        async with app.run_test(size=(140, 40)) as pilot:
            thread = await launch(backend, "Hang", title="Hangs")
            await until(lambda: app.view is not None and (r := app.view.by_id.get(thread))
                        and r.state == "running", what="the thread running")
            await until(lambda: clocks.looks >= 2, what="the app looking at the time")
            clocks.offset += NO_PROGRESS_S * 2  # paused, twice the rule's dwell ...
            link.cut()  # ... and its socket died meanwhile; no network yet
            await until(lambda: isinstance(app.conn, Reconnecting), what="the socket found dead")
            for _ in range(int(FRESH_S // (GAP_S / 2)) + 2):  # the hold's time passes
                clocks.offset += GAP_S / 2
                ticks = clocks.ticks
                await until(lambda n=ticks: clocks.ticks > n, what="a derivation")
            await pilot.pause(0.2)
            row = app.view.by_id[thread]
            assert isinstance(app.conn, Reconnecting), app.conn
            assert "stale" in row.overlays, row.overlays
            assert [f.rule for f in row.findings] == [] and row.state == "running", row
            link.mend()
            await until(lambda: isinstance(app.conn, Live), timeout=30, what="live again")
            found = await until(lambda: [f.rule for f in app.view.by_id[thread].findings
                                         if f.rule == "no-progress"], what="the real finding")
            assert found == ["no-progress"]
            await until(lambda: not app.tree.has_class("-stale"), what="the rows current")
            assert "stale" not in app.view.by_id[thread].overlays


async def test_in_the_hold_after_its_own_pause_the_app_says_its_rows_are_catching_up() -> None:
    """The rows are dimmed in the hold: the banner and the status line say why (the app was
    paused and is catching up), not "live"; when the hold ends they say "live" again."""
    clocks = StillClocks()
    async with running_backend() as backend:
        source = LiveSource(Target(backend.url, Secret(backend.token)),
                            backoff=Backoff.fast(), ping_interval=1.0)
        app = SupervisorApp(source, config=TuiConfig(bell=False, toast=False),
                            clock=clocks.wall)
        app.renderer._derive_clock.monotonic = clocks.monotonic
        async with app.run_test(size=(140, 40)) as pilot:
            banner, status = app.query_one(Banner), app.query_one(StatusBar)

            def look() -> tuple[bool, str, str, bool]:
                return (app.tree.has_class("-stale"), str(banner.render()),
                        str(status.render()), banner.has_class("-hidden"))

            await launch(backend, "Hang", title="Hangs")
            await until(lambda: isinstance(app.conn, Live) and app.view is not None
                        and app.view.rows and not app.tree.has_class("-stale"),
                        what="the rows live")
            await until(lambda: clocks.looks >= 2, what="the app looking at the time")
            assert status.render().plain.startswith("● live"), look()
            clocks.offset += GAP_S * 4  # the app was paused
            await until(lambda: app.tree.has_class("-stale"), what="the rows dimmed")
            await pilot.pause()
            held = look()
            assert held[0] and app.renderer._derive_clock.holding, held
            assert not held[3] and "catching up" in held[1] and "paused" in held[1], held
            assert "catching up" in held[2] and "● live" not in held[2], held
            for _ in range(int(FRESH_S // (GAP_S / 2)) + 1):  # the hold's time passes
                clocks.offset += GAP_S / 2
                ticks = clocks.ticks
                await until(lambda n=ticks: clocks.ticks > n, what="a derivation")
            await until(lambda: not app.tree.has_class("-stale"), what="the rows current")
            await until(lambda: banner.has_class("-hidden")
                        and status.render().plain.startswith("● live"),
                        what=f"live said again: {look()}")
