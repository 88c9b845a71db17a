"""`t3tui watch [--ndjson]`: one line per state change, finding or connection change.

History replayed before `synchronized` prints nothing: the first synchronized view is the
baseline. While the connection is down nothing is compared (the data is stale); once it is
live again, what changed meanwhile is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from rich.text import Text

from t3tui.client.environments import Environment
from t3tui.client.errors import ClientError
from t3tui.client.session import Session, StreamUpdate
from t3tui.client.state import ConnectionState, Failed, Live, Reconnecting
from t3tui.client.waiting import set_within
from t3tui.headless.acting import (
    Acting,
    add_policy_arguments,
    decision_text,
    on_signal,
    policies_from,
)
from t3tui.headless.common import (
    EXIT_ERROR,
    SHUTDOWN_GRACE_S,
    CommandError,
    add_server_arguments,
    bounded_by,
    now,
    positive_seconds,
    recording_to,
    run_async,
    supervised,
)
from t3tui.headless.environments import environments_of
from t3tui.headless.reconnects import STALE_DWELL_S, ReconnectLines
from t3tui.headless.render import FINDING_STYLE, console, state_label
from t3tui.model import Change, ChangeTracker, Supervisor
from t3tui.model.labels import FINDING_WORDS, clock, one_line, reason_detail, short_id
from t3tui.model.remedy import remedy
from t3tui.policy.resume import Resume
from t3tui.protocol import format_ts
from t3tui.words.names import Rows, Threads, humanize

# Time-based findings (no progress, drain too long) appear without any event: look again
# at least this often.
TICK_S = 1.0
# What arrives within a frame is looked at once, as the app's screen does: a look after
# every batch cost more than the batches at a few hundred items a second. 30 a second, not
# the screen's 60: a line printed is read by a person or a journal, not painted under a key.
FRAME_S = 1 / 30


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "watch",
        help="print one line per state change or finding until interrupted",
        description=(
            "Print state changes, findings and connection changes as they happen. With --act, "
            "act on findings by policy and print every decision. Exit 0 after --duration; 2 "
            "on a connection error, a policy file that does not check (or when the server "
            "gives up on us)."
        ),
    )
    parser.add_argument("--ndjson", action="store_true", help="one JSON object per line")
    parser.add_argument("--raw", action="store_true",
                        help="reasons as the detectors wrote them, with raw ids")
    parser.add_argument(
        "--duration", type=positive_seconds, metavar="S", help="stop after S seconds"
    )
    parser.add_argument("--record", metavar="FILE",
                        help="also record every frame to FILE (see t3tui record)")
    add_server_arguments(parser)
    add_policy_arguments(parser)


def _undelivered_hint(change: Change) -> tuple[str, str] | None:
    """A result that will not reach its parent says so, and what to run about it."""
    finding = change.finding
    if change.kind != "finding" or finding is None:
        return None
    child = short_id(change.thread_id)
    if finding.kind == "undelivered_result":
        return "undelivered", f"the parent was never told; t3tui forward {child}"
    if finding.kind == "orphaned_delivery":
        return "orphaned", (f"the parent will not be told; t3tui forward {child} once it finishes, "
                            f"or stop it: t3tui interrupt {child} --tree")
    return None


class Printer:
    def __init__(self, ndjson: bool, environment: str | None = None, raw: bool = False) -> None:
        """`environment`: with several (`--env`), every line and record names its own.
        Reasons name threads by title and short id (`names`, the latest rows), unless `raw`;
        the NDJSON records always keep the raw text."""
        self.ndjson = ndjson
        self.out = console()
        self.environment = environment
        self.raw = raw
        self.names: Threads | None = None
        # a long outage: a few lines, not one per attempt; a quick catch-up: none (text only)
        self.reconnects = ReconnectLines(None if ndjson else STALE_DWELL_S)

    def words(self, text: str, thread_id: str) -> str:
        return one_line(text if self.raw else humanize(text, self.names, thread_id))

    def emit(self, record: dict[str, Any], text: Text) -> None:
        if self.environment is not None:
            record = {**record, "environment": self.environment}
            text = Text(f"{self.environment}  ", style="bold") + text
        if self.ndjson:
            sys.stdout.write(json.dumps(record, default=str) + "\n")
            sys.stdout.flush()
        else:
            self.out.print(text)

    def change(self, change: Change) -> None:
        record: dict[str, Any] = {
            "at": format_ts(change.at),
            "kind": change.kind,
            "threadId": change.thread_id,
            "title": change.title,
            "from": change.old_state,
            "to": change.new_state,
            "reason": change.reason,
        }
        text = Text().append(clock(change.at), style="dim").append("  ")
        if change.kind == "appeared":
            text.append("+ new ", style="bold")
            text.append_text(state_label(change.new_state or "?"))
        elif change.kind == "state":
            text.append_text(state_label(change.old_state or "?"))
            text.append(" → ")
            text.append_text(state_label(change.new_state or "?"))
        elif change.finding is not None:
            kind = FINDING_WORDS.get(change.finding.kind, change.finding.kind)
            cleared = change.kind == "finding-cleared"
            text.append(f"{'✔ cleared' if cleared else '⚑'} {kind}",
                        style="green" if cleared else FINDING_STYLE)
        text.append("  ").append(one_line(change.title) or short_id(change.thread_id), style="bold")
        if change.finding is not None:
            finding = change.finding
            record["finding"] = {
                "kind": finding.kind,
                "rule": finding.rule,
                "reason": finding.reason,
                "evidence": finding.evidence,
                "remedy": remedy(finding),  # as `status --json` gives it, from the same words
            }
            text.append("  ").append(self.words(finding.reason, change.thread_id))
            text.append(f"  [{finding.rule}]", style="dim")
            hint = _undelivered_hint(change)
            if hint:
                record["notify"], line = hint
                text.append(f"  → {line}", style="bold")
        elif detail := reason_detail(change.new_state or "", change.reason):
            text.append("  ").append(self.words(detail, change.thread_id), style="dim")
        text.append(f"  {short_id(change.thread_id)}", style="dim")
        self.emit(record, text)

    def policy(self, record: dict[str, Any], decision: Any, text: str | None = None) -> None:
        """A policy's decision (or a word about the policies: on, off, re-read)."""
        if decision is not None:
            self.emit(record, decision_text(decision))
        else:
            self.emit(record, Text(f"{clock(now())}  {text}", style="bold"))

    def tick(self, record: dict[str, Any]) -> None:
        """The policies' heartbeat (`Acting.heartbeat`): a record, never a line of text."""
        if self.ndjson:
            self.emit(record, Text())

    def connection(self, state: ConnectionState, at: datetime | None = None) -> None:
        at = at or now()
        if not self.reconnects.say(state, at):
            return
        detail = ""
        if isinstance(state, Reconnecting):
            detail = self.reconnects.detail(state, at)
        elif isinstance(state, Live):
            detail = self.reconnects.back
        elif hasattr(state, "reason"):
            detail = str(state.reason)
        self._connection(state.kind, detail, at)

    def look(self, at: datetime) -> None:
        """Every look of the watch loop: a catch-up that lasts is said once."""
        if (since := self.reconnects.due(at)) is not None:
            self._connection("stale", f"catching up since {clock(since)}", at)

    def _connection(self, kind: str, detail: str, at: datetime) -> None:
        record = {"at": format_ts(at), "kind": "connection", "state": kind, "detail": detail}
        text = Text(f"{clock(at)}  connection {kind}", style="dim")
        if detail:  # a server's Defect text may be in it
            text.append(f" ({one_line(detail)})", style="dim")
        self.emit(record, text)


async def watch(session: Session, supervisor: Supervisor, printer: Printer,
                acting: Acting | None = None,
                monotonic: Callable[[], float] = time.monotonic) -> None:
    """Print changes forever (the caller bounds it); with `acting`, the policies act too.

    Just after a pause of this process (`Resume`: a suspend, SIGSTOP) nothing is compared,
    as while stale: its view is from before the pause, catching up, with a clock minutes on
    (a turn's end before its run's end, a fresh provider record against the old view: a
    false finding for a second). Once the hold ends, what changed meanwhile is printed."""
    wake = asyncio.Event()
    resume = Resume()

    def on_update(_update: StreamUpdate) -> None:
        wake.set()

    def on_state(state: ConnectionState) -> None:
        printer.connection(state)
        wake.set()

    stop_updates = session.on_update(on_update)
    stop_states = session.state.subscribe(on_state)
    # One whole view as the baseline; after it only the rows that changed are derived and
    # compared (`changed_rows`, as the app's screen does), never every row per batch.
    at = now()
    baseline = supervisor.view(at)
    tracker = ChangeTracker(baseline)
    printer.names = Rows(tracker.rows)  # the rows as they are now, to name threads by
    supervisor.changed_rows(at)  # what that view derived is the baseline, not a change
    if acting is not None:
        acting.begin(baseline.rows, at)
    try:
        while True:
            wake.clear()
            state = session.state.value
            if isinstance(state, Failed):
                # The session gave up (e.g. the token was refused after a restart): nothing
                # more will arrive, so end with exit 2 instead of watching a dead connection.
                raise ClientError(state.reason)
            at = now()
            printer.look(at)
            if resume.look(monotonic()) and isinstance(state, Live):
                changed = supervisor.changed_rows(at)
                for change in tracker.update(changed, at):
                    printer.change(change)
                if acting is not None:
                    acting.rows_changed(changed)
            if acting is not None:
                acting.tick(at, live=isinstance(state, Live))
            looked = time.monotonic()
            # not wait_for: it can lose the cancellation
            await set_within(wake, TICK_S if acting is None else min(TICK_S, acting.due_in()))
            # the rest of the frame: batches that arrive meanwhile are taken in one look
            # (one `changed_rows`, not one per batch), and a change is printed within it
            if (rest := looked + FRAME_S - time.monotonic()) > 0:
                await asyncio.sleep(rest)
    finally:
        stop_updates()
        stop_states()


async def watch_for(duration: float | None, session: Session, supervisor: Supervisor,
                    printer: Printer, acting: Acting | None = None) -> None:
    """`watch` for `duration` seconds (None: until cancelled)."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(duration):
            await watch(session, supervisor, printer, acting)


async def watch_environments(args: argparse.Namespace, envs: list[Environment]) -> int:
    """Every environment at once, each line prefixed with its name; one that cannot be
    reached or gives up is said once and the others go on. Exit 2 when none is left."""
    if args.record:
        raise CommandError("--record takes one server (--url), not --env")
    policies = policies_from(args)
    actings: list[Acting] = []  # SIGUSR1 switches them all

    async def one(env: Environment, stack: contextlib.AsyncExitStack) -> None:
        printer = Printer(args.ndjson, env.name, args.raw)
        try:
            session, supervisor = await stack.enter_async_context(
                supervised(args, target=env.target))
        except (ClientError, TimeoutError) as exc:
            printer.connection(Failed(str(exc)))
            return
        printer.connection(session.state.value)
        acting = Acting(args, session, supervisor, printer.policy, *policies,
                        beat=printer.tick) if policies else None
        if acting is not None:
            actings.append(acting)
        try:
            with contextlib.suppress(ClientError):  # it gave up: its Failed line was printed
                await watch(session, supervisor, printer, acting)
        finally:
            if acting is not None:
                await acting.close(args.confirm_timeout + 5)

    async with contextlib.AsyncExitStack() as stack:
        try:
            with on_signal(actings):
                async with asyncio.timeout(args.duration):
                    await asyncio.gather(*(one(e, stack) for e in envs))
        except TimeoutError:
            return 0
    return EXIT_ERROR


def run(args: argparse.Namespace) -> int:
    printer = Printer(args.ndjson, raw=args.raw)

    async def main() -> int:
        envs = environments_of(args)
        if envs:
            return await watch_environments(args, envs)
        # every policy is checked before anything connects: a bad file runs nothing
        policies = policies_from(args)
        with recording_to(args.record, args) as recorder:
            async with supervised(args, recorder=recorder) as (session, supervisor):
                printer.connection(session.state.value)
                acting = Acting(args, session, supervisor, printer.policy, *policies,
                                beat=printer.tick) if policies else None
                try:
                    with on_signal([acting] if acting else []):
                        await watch_for(args.duration, session, supervisor, printer, acting)
                finally:
                    if acting is not None:
                        await acting.close(args.confirm_timeout + 5)
        return 0

    bound = None if args.duration is None else args.duration + SHUTDOWN_GRACE_S
    with bounded_by(bound, "watch"):
        return run_async(main)
