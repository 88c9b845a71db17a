"""`t3tui watch --act [--dry-run] [--policy FILE]`: the policies at work in a headless watch.

Every decision is a line (and with `--ndjson` its journal record, `"kind": "policy"`), and a
note in the recording. Policies come from `--policy FILE`, else the config file's
`[[policy]]` entries, else the recommended set. The kill switch: SIGUSR1 switches acting off
and on; the policy file removed switches it off, changed is read again (off while it does not
check). With `--act` the providers' own records are read as `status` reads them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.text import Text

from t3tui.actions import SessionPort
from t3tui.client.environments import config_path
from t3tui.client.session import Session
from t3tui.headless.common import CommandError, now, positive_seconds
from t3tui.headless.heartbeat import HEARTBEAT_S, Heartbeat
from t3tui.headless.proof import add_proof_arguments, homes_from
from t3tui.model import Supervisor, ThreadRow
from t3tui.model.labels import clock, one_line, short_id
from t3tui.policy import Decision, PolicyError, PolicyFile, PolicySet
from t3tui.policy.acted import ActedLog
from t3tui.policy.cadence import Cadence
from t3tui.policy.engine import CONFIRM_TIMEOUT_S, Engine
from t3tui.policy.resume import Resume
from t3tui.policy.switch import choose
from t3tui.proof.feed import follow_records
from t3tui.proof.records import RecordReader
from t3tui.protocol import format_ts

STYLE = {"act": "bold magenta", "dry-run": "bold cyan", "skip": "dim"}


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "acting by policy", "see README: Unattended supervision")
    group.add_argument("--act", action="store_true",
                       help="act on findings by policy (default: the recommended set)")
    group.add_argument("--dry-run", action="store_true",
                       help="with --act: print what each policy would send, send nothing")
    group.add_argument("--policy", metavar="FILE",
                       help="with --act: the policies to use (TOML, [[policy]] entries)")
    group.add_argument("--confirm-timeout", type=float, default=CONFIRM_TIMEOUT_S, metavar="S",
                       help=f"how long an action waits for the stream (default {CONFIRM_TIMEOUT_S:g})")
    group.add_argument("--heartbeat", type=positive_seconds, metavar="S",
                       help=f"with --act --ndjson: a \"kind\": \"tick\" record (the policies "
                       f"are alive, and the findings they judge) every S seconds (default "
                       f"{HEARTBEAT_S:g}), and at once when those findings change")
    add_proof_arguments(parser)


def policies_from(args: argparse.Namespace) -> tuple[PolicySet, PolicyFile | None] | None:
    """The policies `args` ask for, checked whole (a PolicyError is one line, exit 2); None
    without `--act` (then a flag of acting is a usage error, not ignored)."""
    if not args.act:
        if args.dry_run or args.policy or args.heartbeat:
            raise CommandError("--dry-run, --policy and --heartbeat go with --act")
        return None
    config, required = config_path(getattr(args, "config", None), os.environ)
    try:
        return choose(Path(args.policy).expanduser() if args.policy else None, config, required)
    except PolicyError as exc:
        raise CommandError(str(exc)) from None


def decision_text(decision: Decision, environment: str | None = None) -> Text:
    text = Text().append(clock(decision.at), style="dim").append("  ")
    if environment:
        text.append(f"{environment}  ", style="bold")
    finished = "⚙ done" if decision.result == "ok" else "⚙ failed"
    mark = {"act": finished if decision.done else "⚙ acting", "dry-run": "⚙ dry run",
            "skip": "⚙ skipped"}[decision.verdict]
    text.append(mark, style=STYLE[decision.verdict]).append("  ")
    text.append(one_line(decision.title) or short_id(decision.thread_id), style="bold")
    text.append("  ").append(one_line(decision.line()))
    text.append(f"  {short_id(decision.thread_id)}", style="dim")
    for step in decision.steps:
        for command in step.sent:
            verb = "would send" if decision.verdict == "dry-run" else "sent"
            text.append(f"\n    {verb} {step.action}: ", style="dim")
            text.append(json.dumps(command, default=str))
    return text


class Acting:
    """The engine for one session, fed by the watch loop."""

    def __init__(self, args: argparse.Namespace, session: Session, supervisor: Supervisor,
                 emit: Any, policies: PolicySet, watched: PolicyFile | None,
                 beat: Callable[[dict[str, Any]], None] | None = None) -> None:
        """`beat`: gets a `tick` record (`heartbeat`) when one is due (`Heartbeat`)."""
        self.session, self.supervisor = session, supervisor
        self._beat = beat
        self._heartbeat = Heartbeat(args.heartbeat or HEARTBEAT_S)
        self.port = SessionPort(session, supervisor)
        self.watched = watched
        self._emit = emit
        self.engine = Engine(policies, clock=now, emit=self._decision, dry_run=args.dry_run,
                             timeout=args.confirm_timeout,
                             records=supervisor.provider_record,
                             acted_log=ActedLog(session.target.base_url))
        self.reader = RecordReader(homes_from(args))
        self._records: asyncio.Task[None] | None = None
        self.resume = Resume()  # a pause of this process (a suspend) holds the policies
        self.cadence = Cadence()  # evaluate on news, else once a second

    def _decision(self, decision: Decision) -> None:
        self.session.note("policy", decision.record())
        self._emit(decision.record(), decision)

    def say(self, text: str) -> None:
        self._emit({"kind": "policies", "at": now().isoformat(), "on": self.engine.switch.on,
                    "text": text}, None, text)

    def begin(self, rows: tuple[ThreadRow, ...], at: datetime) -> None:
        self.engine.start(at)
        self.engine.seed(rows)
        mode = "dry run" if self.engine.dry_run else "acting"
        self.say(f"policies on ({len(self.engine.policies)}, {mode}): "
                 f"{self.engine.policies.source}")
        self._records = asyncio.create_task(
            follow_records(self.supervisor, self.reader, note=self.session.note),
            name="t3tui-records")

    def rows_changed(self, changed: dict[str, ThreadRow | None]) -> None:
        self.cadence.news(self.engine.rows_changed(changed))

    def due_in(self) -> float:
        """Seconds until the policies evaluate again though nothing is new: the watch loop
        looks by then, whatever batch woke it last."""
        return self.cadence.due_in(time.monotonic())

    def tick(self, at: datetime, live: bool) -> None:
        """One look of the watch loop (a frame's): the policies evaluate when there is news
        to judge, else once a second (`Cadence`)."""
        looked = time.monotonic()
        fresh = self.resume.look(looked)
        synchronized = live and self.supervisor.shell_synchronized
        state = (live, synchronized, fresh, self.engine.switch.on)
        if not self.cadence.due(state, looked):
            return
        if self.watched is not None and (change := self.watched.check()) is not None:
            if change.policies is not None:
                self.engine.policies = change.policies
            self.engine.switch.set(change.on, change.text)
            self.say(change.text)
        self.cadence.evaluated((live, synchronized, fresh, self.engine.switch.on), looked)
        self.engine.tick(self.port, at, live=live, synchronized=synchronized,
                         thread_synced=self.supervisor.thread_synchronized, fresh=fresh)
        judged = frozenset((s.thread_id, s.finding.rule, s.first_seen)
                           for s in self.engine.looked)
        if self._beat is not None and self._heartbeat.due(at, judged):
            self._beat(self.heartbeat(at, live))

    def heartbeat(self, at: datetime, live: bool) -> dict[str, Any]:
        """The evaluation at `at`: its number, and every finding occurrence a policy is about
        that it judged (decisions, if any, were emitted before it). A reader waiting for "it
        looked again past that moment and did nothing" waits for one of these."""
        engine = self.engine
        return {"kind": "tick", "at": format_ts(at), "looks": engine.looks,
                "on": engine.switch.on, "live": live,
                "findings": [{"threadId": s.thread_id, "rule": s.finding.rule,
                              "seenAt": format_ts(s.first_seen)} for s in engine.looked]}

    def toggle(self) -> None:
        on = self.engine.switch.toggle("SIGUSR1")
        self.say(f"policies {'on' if on else 'off'} (SIGUSR1)")

    async def close(self, grace: float) -> None:
        """Let runs in flight come to their outcome (bounded), then stop reading records."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace):
                await self.engine.idle()
        await self.engine.stop()
        if self._records is not None:
            self._records.cancel()
            await asyncio.gather(self._records, return_exceptions=True)


@contextlib.contextmanager
def on_signal(actings: list[Acting]) -> Iterator[None]:
    """SIGUSR1 switches every `Acting` in the list off and on (the list may still grow)."""
    loop = asyncio.get_running_loop()

    def toggle() -> None:
        for acting in actings:
            acting.toggle()

    try:
        loop.add_signal_handler(signal.SIGUSR1, toggle)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGUSR1)
