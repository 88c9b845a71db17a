"""The app's triage keys: the triage report (live and replay) and the replay controls.

A controller the app holds (`app.triage`). The report is built off the event loop (`asyncio.to_thread`): it
replays the recording twice (t3tui.client.triage). With several environments the report on a
`NAME:ID` row rests on that environment's own source alone (its recording, its server, its
detector config, the thread id that server knows), so it reads as it would in an app watching
that environment only. The replay keys move the source's clock
and then redraw everything at once, since a jump in time can change any row.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.message import Message

from t3tui.client.errors import describe
from t3tui.client.triage import TriageRun, report_name, save_report
from t3tui.model.report import build_report
from t3tui.model.timespec import AT_HELP, TimeSpecError, parse_at
from t3tui.tui.app.gates import GateInputs
from t3tui.tui.app.keys import REPLAY_ACTIONS
from t3tui.tui.app.port import AppPort
from t3tui.tui.app.refusals import SENDING
from t3tui.tui.screens.modals import Field, PromptScreen
from t3tui.tui.screens.report import ReportScreen
from t3tui.tui.screens.transcript import TranscriptScreen
from t3tui.tui.sources.environments import is_multi
from t3tui.tui.widgets.replay_bar import ReplayBar, bar_text
from t3tui.words.report import render_markdown

READ_ONLY = "a replay is read-only"


class ReportReady(Message):
    def __init__(self, markdown: str, saved: str) -> None:
        super().__init__()
        self.markdown = markdown
        self.saved = saved


class Triage:
    """The app's triage keys (see the module docstring); the replay bar's hint is its own."""

    def __init__(self, app: AppPort) -> None:
        self.app = app
        self._bar_hint = ""

    @property
    def replaying(self) -> bool:
        return getattr(self.app.source, "replay", None) is not None

    def triage_gate(self, action: str, inputs: GateInputs) -> bool | None:
        """False hides a key that cannot apply to this source; None: no opinion."""
        if action in REPLAY_ACTIONS:  # a transcript read while the replay plays: its keys too
            return inputs.replaying and (inputs.on_main
                                         or isinstance(inputs.screen, TranscriptScreen))
        if action in SENDING and inputs.replaying:
            return False
        if action == "report" and not inputs.can_report:
            return False
        return None

    def can_report(self) -> bool:
        if is_multi(self.app.source):
            return any(hasattr(e.source, "triage_recording")
                       for e in self.app.source.environments)  # type: ignore[attr-defined]
        return hasattr(self.app.source, "triage_recording")

    def report_target(self, row_id: str) -> tuple[Any, str, str | None] | None:
        """(the source the report rests on, the thread id its server knows, the environment's
        name or None); None when that source keeps no recording to report from."""
        source: Any = self.app.source
        env: str | None = None
        if is_multi(source):
            try:
                one, row_id = source.environment(row_id)
            except (KeyError, ValueError):  # an environment's own node, not a thread
                return None
            source, env = one.source, one.name
        return (source, row_id, env) if hasattr(source, "triage_recording") else None

    # -- the report --

    def report(self) -> None:
        row = self.app.current_row()
        target = self.report_target(row.id) if row is not None else None
        if target is None:
            return
        source, thread_id, env = target
        at = self.app.clock().timestamp()
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
                    return markdown, save_report(markdown, self.app.report_dir,
                                                 report_name(doc, env))

                markdown, path = await asyncio.to_thread(build)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # never a traceback: say why, keep the app
                self.app.notify(f"no report: {describe(exc)}", title="report", severity="error",
                            markup=False)
                return
            finally:
                self._bar_hint = ""
            self.app.post_message(ReportReady(markdown, path.name))

        self.app.run_worker(job(), name="report", group="report", exclusive=True,
                        exit_on_error=False)

    def report_ready(self, message: ReportReady) -> None:
        self.app.push_screen(ReportScreen(message.markdown, message.saved))

    # -- the replay controls --

    def _moved(self, hint: str = "") -> None:
        self._bar_hint = hint
        self.app.renderer.refresh_view()

    def replay_play(self) -> None:
        if self.replaying:
            playing = self.app.source.toggle()  # type: ignore[attr-defined]
            self._moved("" if playing else "paused")

    def replay_speed(self) -> None:
        if self.replaying:
            self._moved(f"speed x{self.app.source.faster()}")  # type: ignore[attr-defined]

    def replay_step(self) -> None:
        if self.replaying:
            moved = self.app.source.step()  # type: ignore[attr-defined]
            self._moved("" if moved else "end of the recording")

    def replay_finding(self) -> None:
        if not self.replaying:
            return
        found = self.app.source.next_finding()  # type: ignore[attr-defined]
        if found is None:
            self._moved("no finding appears after this moment")
            return
        _at, finding = found
        self._moved(f"⚑ {finding.kind} · {finding.rule}")
        self.app.tree.select_thread(finding.thread_id)

    def replay_seek(self) -> None:
        if not self.replaying:
            return
        source: Any = self.app.source

        def chosen(values: dict[str, str] | None) -> None:
            if not values:
                return
            try:
                at = parse_at(values.get("time"), source.start, source.end)
            except TimeSpecError as exc:
                self.app.notify(str(exc), title="go to", severity="warning", markup=False)
                return
            source.seek(at)
            self._moved("past the end of the recording: at its end" if at > source.end
                        else "")

        self.app.push_screen(PromptScreen("Go to a moment of the recording", Text(AT_HELP),
                                      [Field("time", "Time", "+1m30s, 05:17:45, -30s, end")],
                                      submit="Go"), callback=chosen)

    def show_replay_bar(self) -> None:
        if not self.replaying:
            return
        source: Any = self.app.source
        replay = source.replay
        findings = len(self.app.view.findings) if self.app.view is not None else 0
        text = bar_text(
            playing=source.playing, speed=source.speed, clock=replay.clock, start=replay.start,
            end=replay.end, index=replay.index, lines=len(replay.recording.lines),
            findings=findings, hint=self._bar_hint)
        self.app.main_screen.query_one(ReplayBar).show(text)
        if isinstance(self.app.screen, TranscriptScreen):  # it has its own
            for bar in self.app.screen.query(ReplayBar):
                bar.show(text)
