"""The app's triage keys: the triage report (live and replay) and the replay controls.

A mixin of `SupervisorApp`. The report is built off the event loop (`asyncio.to_thread`): it
replays the recording twice (t3tui.client.triage). With several environments the report on a
`NAME:ID` row rests on that environment's own source alone (its recording, its server, its
detector config, the thread id that server knows), so it reads as it would in an app watching
that environment only. The replay keys move the source's clock
and then redraw everything at once, since a jump in time can change any row.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.message import Message

from t3tui.client.errors import describe
from t3tui.client.triage import TriageRun, report_name, save_report
from t3tui.model.report import build_report
from t3tui.model.timespec import AT_HELP, TimeSpecError, parse_at
from t3tui.tui.app.keys import REPLAY_ACTIONS
from t3tui.tui.app.refusals import SENDING
from t3tui.tui.screens.modals import Field, PromptScreen
from t3tui.tui.screens.report import ReportScreen
from t3tui.tui.sources.environments import is_multi
from t3tui.tui.widgets.replay_bar import ReplayBar, bar_text
from t3tui.words.report import render_markdown

if TYPE_CHECKING:
    from t3tui.tui.app.app import SupervisorApp

    _Base = SupervisorApp
else:
    _Base = object

READ_ONLY = "a replay is read-only"


class ReportReady(Message):
    def __init__(self, markdown: str, saved: str) -> None:
        super().__init__()
        self.markdown = markdown
        self.saved = saved


class TriageMixin(_Base):
    """Triage methods of `SupervisorApp` (see the module docstring)."""

    report_dir: Path = Path(".")  # reports are written here (the working directory)
    _bar_hint = ""

    @property
    def replaying(self) -> bool:
        return getattr(self.source, "replay", None) is not None

    def triage_gate(self, action: str) -> bool | None:
        """False hides a key that cannot apply to this source; None: no opinion."""
        if action in REPLAY_ACTIONS:
            return self.replaying and self.screen is self.main_screen
        if action in SENDING and self.replaying:
            return False
        if action == "report" and not self._can_report():
            return False
        return None

    def _can_report(self) -> bool:
        if is_multi(self.source):
            return any(hasattr(e.source, "triage_recording")
                       for e in self.source.environments)  # type: ignore[attr-defined]
        return hasattr(self.source, "triage_recording")

    def report_target(self, row_id: str) -> tuple[Any, str, str | None] | None:
        """(the source the report rests on, the thread id its server knows, the environment's
        name or None); None when that source keeps no recording to report from."""
        source: Any = self.source
        env: str | None = None
        if is_multi(source):
            try:
                one, row_id = source.environment(row_id)
            except (KeyError, ValueError):  # an environment's own node, not a thread
                return None
            source, env = one.source, one.name
        return (source, row_id, env) if hasattr(source, "triage_recording") else None

    # -- the report --

    def action_report(self) -> None:
        row = self.current_row()
        target = self.report_target(row.id) if row is not None else None
        if target is None:
            return
        source, thread_id, env = target
        at = self.clock().timestamp()
        self._bar_hint = "writing the report…"

        async def job() -> None:
            nonlocal at
            try:
                recording = await source.triage_recording()
                if getattr(source, "replay", None) is None:
                    # live, the report is as of now: a fresh short session (when the app
                    # could not record its own) begins after the key was pressed, and would
                    # leave nothing before `at`
                    at = max(at, recording.end)

                named = getattr(source, "report_source", None)

                def build() -> tuple[str, Path]:
                    run = TriageRun(recording, source.supervisor.config,
                                    named() if named is not None else None)
                    doc = build_report(run.gather(thread_id, at))
                    markdown = render_markdown(doc)
                    return markdown, save_report(markdown, self.report_dir,
                                                 report_name(doc, env))

                markdown, path = await asyncio.to_thread(build)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # never a traceback: say why, keep the app
                self.notify(f"no report: {describe(exc)}", title="report", severity="error",
                            markup=False)
                return
            finally:
                self._bar_hint = ""
            self.post_message(ReportReady(markdown, path.name))

        self.run_worker(job(), name="report", group="report", exclusive=True,
                        exit_on_error=False)

    def on_report_ready(self, message: ReportReady) -> None:
        self.push_screen(ReportScreen(message.markdown, message.saved))

    # -- the replay controls --

    def _moved(self, hint: str = "") -> None:
        self._bar_hint = hint
        self.refresh_view()

    def action_replay_play(self) -> None:
        if self.replaying:
            playing = self.source.toggle()  # type: ignore[attr-defined]
            self._moved("" if playing else "paused")

    def action_replay_speed(self) -> None:
        if self.replaying:
            self._moved(f"speed x{self.source.faster()}")  # type: ignore[attr-defined]

    def action_replay_step(self) -> None:
        if self.replaying:
            moved = self.source.step()  # type: ignore[attr-defined]
            self._moved("" if moved else "end of the recording")

    def action_replay_finding(self) -> None:
        if not self.replaying:
            return
        found = self.source.next_finding()  # type: ignore[attr-defined]
        if found is None:
            self._moved("no finding appears after this moment")
            return
        _at, finding = found
        self._moved(f"⚑ {finding.kind} · {finding.rule}")
        self.tree.select_thread(finding.thread_id)

    def action_replay_seek(self) -> None:
        if not self.replaying:
            return
        source: Any = self.source

        def chosen(values: dict[str, str] | None) -> None:
            if not values:
                return
            try:
                at = parse_at(values.get("time"), source.start, source.end)
            except TimeSpecError as exc:
                self.notify(str(exc), title="go to", severity="warning", markup=False)
                return
            source.seek(at)
            self._moved("past the end of the recording: at its end" if at > source.end
                        else "")

        self.push_screen(PromptScreen("Go to a moment of the recording", Text(AT_HELP),
                                      [Field("time", "Time", "+1m30s, 05:17:45, -30s, end")],
                                      submit="Go"), callback=chosen)

    def show_replay_bar(self) -> None:
        if not self.replaying:
            return
        source: Any = self.source
        replay = source.replay
        findings = len(self.view.findings) if self.view is not None else 0
        self.main_screen.query_one(ReplayBar).show(bar_text(
            playing=source.playing, speed=source.speed, clock=replay.clock, start=replay.start,
            end=replay.end, index=replay.index, lines=len(replay.recording.lines),
            findings=findings, hint=self._bar_hint))
