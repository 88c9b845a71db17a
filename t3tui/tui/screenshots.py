"""Deterministic scenes of the app, for the snapshot tests and the README screenshots.

`python -m t3tui.tui.screenshots DIR` writes one SVG per scene into DIR (`make snapshots`).
Every scene replays the bundled `showcase` frames (fixed ids and times) with the clock frozen
at 12:05:00 UTC and no ticking, and is taken once the screen is steady (`steady`: a layout
asked for is done), so each render is byte-for-byte the same.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from t3tui.client.state import ConnectionState, Reconnecting
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.app.config import TuiConfig
from t3tui.tui.sources.frames import FrameSource, load_frames
from t3tui.tui.widgets.thread_tree import ThreadTree

NOW = datetime(2026, 10, 4, 12, 5, 0, tzinfo=UTC)
SERVER = "http://127.0.0.1:3773"
REVIEW = "thread-review"
ORCHESTRATOR = "thread-orchestrator"
FANOUT = "thread-fanout"
WIDE = (160, 48)
NARROW_SIZE = (80, 24)
STUCK_CHILD = "thread:delegated-task:command%3Amcp%3Asess-1%3Adelegate-task%3Aready-1"
NEEDS_INPUT_CHILD = "thread:delegated-task:command%3Amcp%3Asess-1%3Adelegate-task%3Amigrate"

Prepare = Callable[[Any], Awaitable[None]]


def showcase_app(*, until: str | None = None, state: ConnectionState | None = None,
                 stale: bool = False) -> SupervisorApp:
    """The app on the showcase frames, clock frozen, no ticks, no user config."""
    source = FrameSource(load_frames("showcase"), label=SERVER, final_state=state, stale=stale,
                         until=until)
    return SupervisorApp(source, config=TuiConfig(bell=False), clock=lambda: NOW, tick=None,
                         new_id=lambda: "cmd-fixed")


def environments_app() -> SupervisorApp:
    """Two environments on the same showcase frames: laptop live, devbox reconnecting."""
    from t3tui.tui.sources.environments import EnvSource, MultiSource

    frames = load_frames("showcase")
    laptop = FrameSource(frames, label="http://127.0.0.1:3773", until="before-settle")
    devbox = FrameSource(frames, label="http://devbox.lan:3773", until="before-settle",
                         final_state=Reconnecting(4, "connection refused"), stale=True)
    source = MultiSource([EnvSource("laptop", laptop), EnvSource("devbox", devbox)])
    return SupervisorApp(source, config=TuiConfig(bell=False), clock=lambda: NOW, tick=None,
                         new_id=lambda: "cmd-fixed")


async def settled(pilot: Any, timeout: float = 10.0) -> None:
    """Wait until the frames are on screen (the source worker has run)."""
    app: SupervisorApp = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (app.view and app.view.rows and app.query_one(ThreadTree).nodes):
        if loop.time() > deadline:
            raise TimeoutError("the showcase frames never reached the screen")
        await pilot.pause(0.02)
    await pilot.pause()


async def steady(pilot: Any, timeout: float = 10.0) -> None:
    """Wait until the screen stops changing: the same picture twice in a row. A picture taken
    right after the last key could catch a layout still pending (the timeline a row short,
    the tree not yet scrolled), depending on how the frames and refreshes were scheduled."""
    app: SupervisorApp = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last = None
    while True:
        await pilot.pause(0.05)
        shot = app.export_screenshot()
        if shot == last:
            return
        if loop.time() > deadline:
            raise TimeoutError("the screen never came to rest")
        last = shot


def select(thread_id: str, *keys: str) -> Prepare:
    async def prepare(pilot: Any) -> None:
        await settled(pilot)
        pilot.app.query_one(ThreadTree).select_thread(thread_id)
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await steady(pilot)

    return prepare


async def settle_dialog(pilot: Any) -> None:
    await settled(pilot)
    app: SupervisorApp = pilot.app
    app.query_one(ThreadTree).select_thread(ORCHESTRATOR)
    await pilot.pause()
    await pilot.press("s")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while app.screen is app.main_screen:
        if loop.time() > deadline:
            raise TimeoutError("the settle confirmation never opened")
        await pilot.pause(0.02)
    await steady(pilot)


def replay_app() -> SupervisorApp:
    """The app replaying the bundled seed 004 recording (reference backend: settle the
    parent, a 3 s check-in to its child); reports go to a fresh temporary directory."""
    import tempfile
    from importlib import resources

    from t3tui.client.recording import read_recording
    from t3tui.tui.sources.replay import ReplaySource

    recorded = resources.files("t3tui.tui").joinpath("recorded", "seed004.ndjson.gz")
    source = ReplaySource(read_recording(Path(str(recorded))),
                          label="replay: seed004.ndjson.gz")
    app = SupervisorApp(source, config=TuiConfig(bell=False, toast=False), clock=source.clock,
                        tick=None, new_id=lambda: "cmd-fixed")
    app.report_dir = Path(tempfile.mkdtemp(prefix="t3tui-scene-"))
    return app


async def until(pilot: Any, done: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not done():
        if loop.time() > deadline:
            raise TimeoutError(what)
        await pilot.pause(0.02)
    await pilot.pause()


async def replay_finding(pilot: Any) -> None:
    """Opened on the first complete tree, then `f`: on to the moment the child is flagged."""
    await settled(pilot)
    await pilot.press("f")
    app: SupervisorApp = pilot.app
    await until(pilot, lambda: bool(app.view and app.view.findings), "no finding on the replay")
    await steady(pilot)


async def replay_report(pilot: Any) -> None:
    from t3tui.tui.screens.report import ReportScreen

    await replay_finding(pilot)
    await pilot.press("w")
    await until(pilot, lambda: isinstance(pilot.app.screen, ReportScreen), "no report screen")
    await steady(pilot)


async def toast_burst(pilot: Any) -> None:
    """A stuck child selected, then a burst of news and action outcomes (`burst.py`)."""
    from textual.widgets._toast import Toast

    from t3tui.tui.burst import raise_burst

    await select(STUCK_CHILD)(pilot)
    app: SupervisorApp = pilot.app
    app.NOTIFICATION_TIMEOUT = 3600  # a picture, not a clock: the toasts stay
    raise_burst(app, NOW)
    await until(pilot, lambda: len(app.screen.query(Toast)) >= 2, "no toasts")
    await steady(pilot)


@dataclass(frozen=True)
class Scene:
    name: str
    about: str
    make: Callable[[], SupervisorApp]
    prepare: Prepare
    size: tuple[int, int] = (140, 40)
    extra: dict[str, Any] = field(default_factory=dict)


SCENES: tuple[Scene, ...] = (
    Scene("tree", "the tree-table in every state, serialized parent selected (its story)",
          showcase_app, select(REVIEW), size=WIDE),
    Scene("detail", "a stuck child: reason, rule, its evidence as a story, runs, messages",
          showcase_app, select(STUCK_CHILD), size=WIDE),
    Scene("transcript", "a parent's transcript: T3's 'Delegated task … reached a terminal "
          "state' names the task by title", showcase_app, select(FANOUT, "enter"), size=WIDE),
    Scene("needs_input", "a child blocked on an approval; agent text with [brackets] verbatim",
          showcase_app, select(NEEDS_INPUT_CHILD)),
    Scene("timeline", "serialized waits: each starts where the previous returned",
          showcase_app, select(REVIEW), size=(120, 32)),
    Scene("settle_confirm", "settling a parent whose child shares its provider session",
          lambda: showcase_app(until="before-settle"), settle_dialog),
    Scene("reconnect_banner", "the socket dropped: stale banner, dimmed rows",
          lambda: showcase_app(state=Reconnecting(3, "connection refused"), stale=True),
          select(REVIEW)),
    Scene("help", "every key, the state glyphs, the filter syntax",
          showcase_app, select(REVIEW, "question_mark")),
    Scene("narrow", "80x24: a stuck child", showcase_app, select(STUCK_CHILD), size=NARROW_SIZE),
    Scene("narrow_tree", "80x24: the tree-table, serialized parent selected", showcase_app,
          select(REVIEW), size=NARROW_SIZE),
    Scene("narrow_transcript", "80x24: a transcript with T3's delegated-task message",
          showcase_app, select(FANOUT, "enter"), size=NARROW_SIZE),
    Scene("toasts", "a burst of news: coalesced, three at most, the status line clear",
          showcase_app, toast_burst, size=WIDE),
    Scene("narrow_toasts", "80x24: the same burst, two toasts, the tree readable",
          showcase_app, toast_burst, size=NARROW_SIZE),
    Scene("environments", "two environments: laptop live, devbox reconnecting and dimmed",
          environments_app, select(f"laptop:{REVIEW}"), size=(150, 44)),
    Scene("replay", "a recording replayed: the replay bar, the child flagged at its moment",
          replay_app, replay_finding),
    Scene("report", "the triage report on the stuck child, written and shown in the app",
          replay_app, replay_report),
)
BY_NAME = {scene.name: scene for scene in SCENES}


async def export(scene: Scene, directory: Path) -> Path:
    app = scene.make()
    async with app.run_test(size=scene.size, notifications=True) as pilot:
        await scene.prepare(pilot)
        path = directory / f"{scene.name}.svg"
        app.save_screenshot(filename=path.name, path=str(directory))
    return path


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m t3tui.tui.screenshots DIR", file=sys.stderr)
        return 2
    directory = Path(argv[0])
    directory.mkdir(parents=True, exist_ok=True)
    for scene in SCENES:
        print(asyncio.run(export(scene, directory)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
