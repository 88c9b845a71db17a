"""The app's policy switch: unattended supervision in the app (off by default).

`P` (and the palette) switches the policies on and off; the status bar says "policies on (N)";
each decision about a thread shows in its detail pane as "Policy N" with what it did and why,
and decisions that act are toasts. The engine (`t3tui.policy`) decides and runs the actions
through the one actions layer, on the app's source (a `Port`). The app's own keys count as the
user acting on a thread (a policy leaves it alone for `user_quiet`), here and, through the
acted log (`t3tui.policy.acted`), in a `watch --act` elsewhere; the demo's autopilot does not.
Never on a replay, recorded frames or a post-mortem.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from t3tui.client.state import Live
from t3tui.model import SupervisorView, ThreadRow
from t3tui.policy import Decision, PolicyFile, PolicySet
from t3tui.policy.acted import ActedLog, note_acted
from t3tui.policy.cadence import Cadence
from t3tui.policy.engine import Engine
from t3tui.policy.resume import Resume
from t3tui.tui.app.messages import ActionStatus
from t3tui.tui.app.port import AppPort

FILE_EVERY = timedelta(seconds=1)  # the policy file is looked at (one stat) at most this often
PHASE = {"ok": "ok", "dry-run": "ok", "skip": "unknown", "pending": "pending"}


class Policies:
    """The app's policies (`app.policies`): the engine (None until enabled), the file it
    watches."""

    def __init__(self, app: AppPort) -> None:
        self.app = app
        self.engine: Engine | None = None
        self.file: PolicyFile | None = None
        self.threads_of_autopilot: frozenset[str] = frozenset()  # not the user's acts
        self._file_checked: datetime | None = None
        # the app looks about once a second; a longer gap is the app paused (a suspend)
        self.resume, self.monotonic = Resume(), time.monotonic
        self.cadence = Cadence()  # evaluate on news, else once a second, as `watch --act`

    def enable(self, policies: PolicySet, *, on: bool = False, dry_run: bool = False,
                        watched: PolicyFile | None = None) -> None:
        """Before `run()`: the policies this app may switch on (a live source only)."""
        if not hasattr(self.app.source, "live_sessions") or self.app.triage.replaying:
            return
        url = getattr(self.app.source, "url", None)  # one server: other processes' actions too
        self.engine = Engine(policies, clock=self.app.clock, emit=self._policy_decided,
                                    dry_run=dry_run, on=on,
                                    records=getattr(self.app.source.supervisor, "provider_record",
                                                    None),
                                    acted_log=ActedLog(url) if isinstance(url, str) else None)
        self.file = watched

    @property
    def text(self) -> str:
        engine = self.engine
        if engine is None or not engine.switch.on:
            return ""
        mode = ", dry run" if engine.dry_run else ""
        return f"policies on ({len(engine.policies)}{mode})"

    def toggle(self) -> None:
        engine = self.engine
        if engine is None:
            self.app.notify("policies apply to a live server only (not a replay or a recording)",
                        title="policies", severity="warning", markup=False)
            return
        on = engine.switch.toggle(f"key {self.app.key_for('policies')}")
        what = f"policies on ({len(engine.policies)}): {engine.policies.source}" if on else \
            "policies off: nothing acts by itself"
        self.app.notify(what, title="policies", markup=False)
        self.app.renderer.patch(self.app.renderer.selected())

    def step(self, view: SupervisorView, now: datetime,
                      changed: tuple[ThreadRow, ...] | None) -> None:
        """From `_show` (every frame): feed the engine what changed, then let it decide when
        there is news to judge, else once a second (`Cadence`; cheap when off)."""
        engine = self.engine
        if engine is None:
            return
        looked = self.monotonic()
        fresh = self.resume.look(looked)  # every look, on or off
        due = self._file_checked is None or now - self._file_checked >= FILE_EVERY
        if due and self.file is not None:
            self._file_checked = now
        if due and self.file is not None and \
                (change := self.file.check()) is not None:
            if change.policies is not None:
                engine.policies = change.policies
            if engine.switch.on or change.on is False:
                engine.switch.set(change.on and engine.switch.on, change.text)
            self.app.notify(change.text, title="policies", markup=False)
            self.cadence.news(True)  # other policies, or the switch
        if not engine.switch.on:
            self.cadence.news(True)  # switched on again: its first look judges
            return
        live = isinstance(self.app.conn, Live)
        if live and view.synchronized and engine.occurrences.watching_since is None:
            engine.start(now)
        if changed is None:
            self.cadence.news(engine.rows_changed({r.id: r for r in view.rows}))
            self.cadence.news(engine.forget_except(view.by_id))
        else:
            self.cadence.news(engine.rows_changed({r.id: r for r in changed}))
        state = (live, view.synchronized, fresh, engine.switch.on)
        if not self.cadence.due(state, looked):
            # a frame when it is due, though nothing else asks for one by then
            self.app.renderer.schedule(self.cadence.due_in(looked))
            return
        self.cadence.evaluated(state, looked)
        supervisor = self.app.source.supervisor
        engine.tick(self.app.source, now, live=live, synchronized=view.synchronized,  # type: ignore[arg-type]
                    thread_synced=supervisor.thread_synchronized, fresh=fresh)

    def user_acted(self, status: ActionStatus) -> None:
        """A key of the user's (not the demo's autopilot) acted on this thread."""
        self.acted_on(status.thread_id, status.started)

    def acted_on(self, thread_id: str, at: datetime) -> None:
        """The user's key sent a command to `thread_id` (the thread it was pressed on, or one
        its action reached: each run a tree stop interrupts)."""
        if thread_id in self.threads_of_autopilot:
            return
        if self.engine is not None:
            self.engine.acted(thread_id, at)
        where = self._server_of(thread_id)
        if where is not None:  # a `watch --act` elsewhere leaves it alone too
            note_acted(*where, at)

    def _note_policy(self, decision: Decision) -> None:
        """Into the recording of the thread's own server, under that server's thread id (with
        several environments, each has its own recording)."""
        source, thread_id = self.app.source, decision.thread_id
        envs = getattr(self.app.source, "environments", None)
        if envs:
            name, _, thread_id = thread_id.partition(":")
            env = next((e for e in envs if e.name == name), None)
            source = env.source if env is not None else None
        recorder = getattr(source, "recorder", None)
        if recorder is not None:
            recorder.note("policy", {**decision.record(), "threadId": thread_id})

    def _server_of(self, thread_id: str) -> tuple[str, str] | None:
        """(server URL, the server's own thread id) of a thread shown here."""
        envs = getattr(self.app.source, "environments", None)
        if envs:
            name, _, raw = thread_id.partition(":")
            env = next((e for e in envs if e.name == name), None)
            return (env.url, raw) if env is not None else None
        url = getattr(self.app.source, "url", None)
        return (url, thread_id) if isinstance(url, str) else None

    def _policy_decided(self, decision: Decision) -> None:
        self._note_policy(decision)
        phase = PHASE.get(decision.result, "failed") if decision.verdict != "act" else \
            ("pending" if not decision.done else "ok" if decision.result == "ok" else "failed")
        text = decision.line().split(": ", 1)[1]
        status = ActionStatus(decision.thread_id, f"policy_{decision.policy}", phase, text,
                              decision.at)
        self.app.statuses.setdefault(decision.thread_id, {})[status.kind] = status
        if decision.verdict != "skip" or decision.code in ("rate-thread", "rate-hour"):
            self.app.notify(text, title=f"Policy {decision.policy} · "
                        f"{self.app.title_of(decision.thread_id)}",
                        severity="information" if phase in ("ok", "pending") else "warning",
                        markup=False)
        # decided inside `_show`: the pane is redrawn after it, not from within it
        self.app.call_later(self.app.renderer.patch, [decision.thread_id])
