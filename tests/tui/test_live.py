"""The real app, driven by Pilot, against the reference backend's demo over real websockets,
with real agent processes: every action, and the two seed flows end to end."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual.widgets import Button, Static

from t3tui.backend.testing import RunningBackend, running_backend
from t3tui.client.backoff import Backoff
from t3tui.client.secret import Secret, Target
from t3tui.client.state import Live, Reconnecting
from t3tui.model import DetectorConfig, ThreadRow
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.app.messages import ActionStatus
from t3tui.tui.screens.modals import ConfirmScreen, HelpScreen, PromptScreen
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.view.timeline import waits_at_once
from t3tui.tui.widgets.panes import Banner, DetailPane, TimelineView
from t3tui.tui.widgets.thread_tree import ThreadTree
from tests.tui.waiting import until

pytestmark = pytest.mark.e2e

SIZE = (160, 50)
# The demo's own timings, shortened: waits of 2 s on children that sleep 4 s.
DEMO_PARAMS = {"short": 2, "timeoutMs": 2000, "sleep": 4, "ticks": 900}
SERIAL = "Two reviews, waited on"
SETTLE_ME = "Settle me, then check in on my child"
SHARED_CHILD = "Same-session child"


@pytest.fixture
async def demo() -> AsyncIterator[RunningBackend]:
    async with running_backend(scenario="demo", scenario_params=DEMO_PARAMS) as backend:
        yield backend


def live_app(url: str, token: str, *, checkin_timeout: float = 3.0,
             confirm_timeout: float = 6.0) -> SupervisorApp:
    source = LiveSource(
        Target(url, Secret(token)),
        config=DetectorConfig(detached_session_dwell_s=1.0, provider_finished_dwell_s=1.0),
        backoff=Backoff.fast(),
        ping_interval=1.0,
    )
    config = TuiConfig(bell=False, checkin_timeout_s=checkin_timeout,
                       confirm_timeout_s=confirm_timeout)
    return SupervisorApp(source, config=config)


def row(app: SupervisorApp, title: str) -> ThreadRow | None:
    if app.view is None:
        return None
    return next((r for r in app.view.rows if r.title == title), None)


def text_of(widget: Static) -> str:
    return str(widget.render())


async def select(pilot: Any, title: str) -> ThreadRow:
    app: SupervisorApp = pilot.app
    found = await until(lambda: row(app, title), what=f"a row titled {title!r}")
    assert app.query_one(ThreadTree).select_thread(found.id)
    await pilot.pause()
    return found


def status(app: SupervisorApp, thread_id: str, kind: str):
    found = app.statuses.get(thread_id, {}).get(kind)
    return found if found is not None and found.done else None


async def settle_me_ready(app: SupervisorApp) -> tuple[ThreadRow, ThreadRow]:
    """The demo's seed 004 pair, once the parent is idle and its same-session child done."""
    parent = await until(
        lambda: (p := row(app, SETTLE_ME)) and p.active_run_id is None
        and (c := row(app, SHARED_CHILD)) and c.state == "done" and p,
        timeout=30, what="the settle-me parent idle with its child done")
    child = row(app, SHARED_CHILD)
    assert child is not None
    return parent, child


async def choose(pilot: Any, label: str) -> None:
    app: SupervisorApp = pilot.app
    try:
        await until(lambda: isinstance(app.screen, ConfirmScreen), what="a confirmation")
    except TimeoutError as missed:  # say what the app showed instead (a refusal's toast?)
        row = app.current_row()
        told = [f"{n.title}: {n.message}" for n in app._notifications]
        raise AssertionError(f"no confirmation for {label!r}: screen {app.screen!r}, selected "
                             f"{row.id if row else None}, toasts {told}") from missed
    # the screen is pushed before its buttons are mounted (seen under load)
    await until(lambda: any(str(b.label) == label for b in app.screen.query(Button)),
                what=f"the {label!r} button")
    buttons = {str(b.label): b for b in app.screen.query(Button)}
    await pilot.click(f"#{buttons[label].id}")


async def test_seed_000_serialized_parent_shows_finding_and_waits_in_series(
        demo: RunningBackend) -> None:
    app = live_app(demo.url, demo.token)
    async with app.run_test(size=SIZE) as pilot:
        parent = await until(
            lambda: (r := row(app, SERIAL)) and any(f.kind == "serialized_wait"
                                                    for f in r.findings) and r,
            timeout=40, what="the serialized_wait finding on the demo's wait parent")
        await select(pilot, SERIAL)
        tree = app.query_one(ThreadTree)
        assert "⚑ serialized" in str(tree.nodes[parent.id].label)
        assert "serial-arrival" in text_of(app.query_one(DetailPane))
        timeline = app.query_one(TimelineView)
        await until(lambda: len(timeline.current) == 2, what="both children on the timeline")
        a, b = timeline.current
        assert (a.title, b.title) == ("Review A", "Review B")
        assert waits_at_once(timeline.current) == 1
        assert a.wait_span is not None and b.wait_span is not None
        assert a.wait_span[1] <= b.wait_span[0]
        assert "serialized: each wait call started only when the previous one returned" in \
            text_of(timeline)
        assert isinstance(app.conn, Live) and "●" in text_of(app.query_one("#status", Static))


async def test_seed_004_settle_checkin_unanswered_stuck_then_stopped(
        demo: RunningBackend) -> None:
    app = live_app(demo.url, demo.token)
    async with app.run_test(size=SIZE) as pilot:
        parent, child = await settle_me_ready(app)
        await select(pilot, SETTLE_ME)
        await pilot.press("s")
        await until(lambda: isinstance(app.screen, ConfirmScreen))
        warning = text_of(app.screen.query_one("#dialog-warning", Static))
        assert SHARED_CHILD in warning and "provider session" in warning
        await choose(pilot, "Settle anyway")
        done = await until(lambda: status(app, parent.id, "settle"), what="settle outcome")
        assert done.phase == "ok" and row(app, SETTLE_ME).settled

        await select(pilot, SHARED_CHILD)
        await pilot.press("c")
        verdict = await until(lambda: status(app, child.id, "checkin"), timeout=20,
                              what="the check-in verdict")
        assert verdict.phase == "failed" and "unanswered" in verdict.text
        await until(lambda: row(app, SHARED_CHILD).state == "stuck", timeout=20,
                    what="the child flagged stuck")
        assert any(n.event == "stuck" and n.thread_id == child.id for n in app.sent_notices)

        # The confirmation names what will stop, and offers the harder option too, because
        # the child looks stuck; the plain interrupt is enough: the backend ends a run whose
        # provider no longer has it, and the stream shows it.
        await pilot.press("i")
        await until(lambda: isinstance(app.screen, ConfirmScreen))
        body = text_of(app.screen.query_one("#dialog-body", Static))
        assert f"of “{SHARED_CHILD}”" in body
        await choose(pilot, "Interrupt")
        stopped = await until(lambda: status(app, child.id, "interrupt"), timeout=20,
                              what="the interrupt outcome")
        assert stopped.phase == "ok", stopped.text
        cleared = row(app, SHARED_CHILD)
        assert cleared.active_run_id is None and cleared.state != "stuck"
        assert not any(n.event == "finished" and n.thread_id == child.id
                       for n in app.sent_notices)  # the user's own stop is not news


async def test_a_checkin_concludes_when_the_user_interrupts_its_run(
        demo: RunningBackend) -> None:
    app = live_app(demo.url, demo.token, checkin_timeout=120.0)
    async with app.run_test(size=SIZE) as pilot:
        parent, child = await settle_me_ready(app)
        await select(pilot, SETTLE_ME)
        await pilot.press("s")
        await choose(pilot, "Settle anyway")
        await until(lambda: status(app, parent.id, "settle"), what="settle outcome")
        # the child's provider session went with the settle: its check-in's run hangs
        await select(pilot, SHARED_CHILD)
        await pilot.press("c")
        detail = app.query_one(DetailPane)
        await until(lambda: row(app, SHARED_CHILD).state == "stuck", timeout=20,
                    what="the child's check-in run stuck")
        assert "waiting 0:" in text_of(detail) and "/ 2:00" in text_of(detail)
        await pilot.press("i")
        await choose(pilot, "Interrupt")
        verdict = await until(lambda: status(app, child.id, "checkin"), timeout=20,
                              what="the check-in verdict once its run was interrupted")
        assert verdict.phase == "failed", verdict.text
        assert "run ended interrupted before answering 'PONG'" in verdict.text
        assert (app.clock() - verdict.started).total_seconds() < 60  # not the 2:00 deadline
        await until(lambda: "run ended interrupted" in text_of(detail))
        assert "waiting" not in text_of(detail)


async def test_force_stop_is_offered_after_a_stop_that_did_not_land(
        demo: RunningBackend) -> None:
    app = live_app(demo.url, demo.token)
    async with app.run_test(size=SIZE) as pilot:
        runner = await select(pilot, "Healthy long runner")
        runner = await until(lambda: (r := row(app, "Healthy long runner"))
                             and r.active_run_id and r, what="the long runner running")
        # what the app records when an interrupt was accepted but the run kept going
        app.statuses[runner.id] = {"interrupt": ActionStatus(
            runner.id, "interrupt", "failed", "still active", app.clock())}
        await pilot.press("i")
        await choose(pilot, "Force stop")
        forced = await until(lambda: (s := status(app, runner.id, "interrupt"))
                             and s.phase != "failed" and s, timeout=20, what="the forced stop")
        assert forced.phase == "ok" and "force-stopped" in forced.text, forced.text
        assert row(app, "Healthy long runner").active_run_id is None


async def test_answer_a_pending_approval(demo: RunningBackend) -> None:
    app = live_app(demo.url, demo.token)
    async with app.run_test(size=SIZE) as pilot:
        child = await until(lambda: (r := row(app, "Deploy")) and r.pending_request and r,
                            timeout=30, what="the deploy child waiting on an approval")
        await select(pilot, "Deploy")
        assert "press a to answer" in text_of(app.query_one(DetailPane))
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmScreen))
        first = next(iter(app.screen.query(Button)))
        await pilot.click(f"#{first.id}")
        outcome = await until(lambda: status(app, child.id, "answer"), what="answer outcome")
        assert outcome.phase == "ok", outcome.text
        assert row(app, "Deploy").pending_request is None


async def test_message_then_transcript_shows_it_verbatim(demo: RunningBackend) -> None:
    app = live_app(demo.url, demo.token)
    async with app.run_test(size=SIZE) as pilot:
        target = await until(lambda: (r := row(app, "Fan out the checks"))
                             and r.active_run_id is None and r.state == "idle" and r,
                             timeout=30, what="the fan-out parent idle")
        await select(pilot, "Fan out the checks")
        await pilot.press("m")
        await until(lambda: isinstance(app.screen, PromptScreen))
        text = "Reply [bold]not markup[/bold] PONG"
        await pilot.press(*text)
        await pilot.press("enter")
        sent = await until(lambda: status(app, target.id, "message"), what="message outcome")
        assert sent.phase == "ok", sent.text
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, TranscriptScreen))
        body = app.screen.query_one("#transcript-body", Static)
        await until(lambda: text in text_of(body), what="our message in the transcript")
        await pilot.press("escape")
        await until(lambda: app.screen is app.main_screen)


async def test_checkin_answered_and_interrupt_a_healthy_run(demo: RunningBackend) -> None:
    app = live_app(demo.url, demo.token, checkin_timeout=10.0)
    async with app.run_test(size=SIZE) as pilot:
        idle = await until(lambda: (r := row(app, "Refactor with a helper"))
                           and r.state == "idle" and r, timeout=30, what="an idle parent")
        await select(pilot, "Refactor with a helper")
        await pilot.press("c")
        verdict = await until(lambda: status(app, idle.id, "checkin"), timeout=20,
                              what="the check-in verdict")
        assert verdict.phase == "ok" and "answered" in verdict.text

        runner = await select(pilot, "Healthy long runner")
        assert runner.active_run_id is not None
        await pilot.press("i")
        await choose(pilot, "Interrupt")
        stopped = await until(lambda: status(app, runner.id, "interrupt"), timeout=20,
                              what="the interrupt outcome")
        assert stopped.phase == "ok", stopped.text
        assert row(app, "Healthy long runner").active_run_id is None
        assert not any(n.thread_id == runner.id for n in app.sent_notices)


async def test_wrong_token_is_a_clear_message_not_a_traceback(demo: RunningBackend) -> None:
    # Refused before anything was shown: the app ends with exit 2 and one clear reason (which
    # `tui/main.py` prints on stderr; tests/tui/test_terminal_conventions.py checks the line).
    app = live_app(demo.url, "not-the-token")
    async with app.run_test(size=SIZE):
        await until(lambda: app.return_code is not None, what="the app to end")
    assert app.return_code == 2
    assert "refused the token" in app.fatal and "not-the-token" not in app.fatal
    assert "Traceback" not in app.fatal


async def test_server_death_shows_stale_banner_and_app_stays_usable() -> None:
    async with contextlib.AsyncExitStack() as stack:
        backend = await stack.enter_async_context(running_backend())
        app = live_app(backend.url, backend.token)
        async with app.run_test(size=SIZE) as pilot:
            await until(lambda: isinstance(app.conn, Live), what="live")
            await stack.aclose()  # the server goes away under the app
            await until(lambda: isinstance(app.conn, Reconnecting), what="reconnecting")
            banner = app.query_one(Banner)
            await until(lambda: "stale — reconnecting" in text_of(banner))
            assert app.query_one(ThreadTree).has_class("-stale")
            assert "reconnecting" in text_of(app.query_one("#status", Static))
            await pilot.press("question_mark")
            await until(lambda: isinstance(app.screen, HelpScreen))
