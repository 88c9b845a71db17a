"""What every headless subcommand shares: server flags, connect-and-sync, finding the thread a
command names, sending a command, errors, exit codes."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.text import Text

from t3tui.actions import Clock, Outcome, SessionPort
from t3tui.client.errors import ClientError, describe
from t3tui.client.outcome import CommandOutcome
from t3tui.client.recorder import Recorder, RecordingExists
from t3tui.client.secret import Target, TargetError, resolve_target
from t3tui.client.session import Session
from t3tui.client.state import Failed
from t3tui.model import CheckInVerdict, DetectorConfig, Supervisor, SupervisorView, ThreadRow
from t3tui.model.labels import matches_short, one_line, short_id
from t3tui.model.wiretext import display_text
from t3tui.policy.acted import note_acted

EXIT_OK = 0
EXIT_FLAGGED = 1
EXIT_ERROR = 2
REFUSED_AFTER_S = 1.0


class CommandError(Exception):
    """A reason to stop with exit code 2 and a one-line message (bad input, not found)."""


class Refused(CommandError):
    """t3tui will not do it (or it was not confirmed): exit code 1, as a server's refusal."""


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """`--url`/`--token` after the subcommand too; SUPPRESS keeps values given before it."""
    parser.add_argument(
        "--url", default=argparse.SUPPRESS, help="server URL (env: T3TUI_URL, T3CODE_URL)"
    )
    parser.add_argument(
        "--token",
        default=argparse.SUPPRESS,
        help="bearer token (env: T3TUI_TOKEN, T3CODE_TOKEN); never printed, but visible to "
             "other local users in `ps`: prefer --token-file or the environment",
    )
    parser.add_argument(
        "--token-file",
        default=argparse.SUPPRESS,
        metavar="PATH",
        help="read the bearer token from PATH (keep it mode 0600)",
    )
    parser.add_argument(
        "--connect-timeout",
        type=positive_seconds,
        default=15.0,
        metavar="S",
        help="give up when not connected and synchronized within S seconds (default: 15)",
    )
    add_env_arguments(parser)


def add_env_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--env", dest="envs", action="append", metavar="NAME=URL", default=argparse.SUPPRESS,
        help="a named server, repeatable (token: T3TUI_TOKEN_<NAME> or the config's "
             "[environments.NAME] token_command); THREAD may then be NAME:THREAD",
    )
    parser.add_argument(
        "--config", metavar="PATH", default=argparse.SUPPRESS,
        help="config file with [environments.NAME] tables (default: "
             "~/.config/t3tui/config.toml)",
    )


def add_thread_command(
    subparsers: argparse._SubParsersAction, name: str, *, help: str, description: str
) -> argparse.ArgumentParser:
    """A subcommand that acts on one THREAD (as `status` prints it: id, prefix, title)."""
    parser = subparsers.add_parser(name, help=help, description=description)
    parser.add_argument(
        "thread", metavar="THREAD",
        help="thread id, unique id prefix, short id as `status` prints it, or exact title",
    )
    return parser


def add_timeout(parser: argparse.ArgumentParser, help: str, default: float | None) -> None:
    parser.add_argument(
        "--timeout", type=positive_seconds, default=default, metavar="S", help=help
    )


MAX_SECONDS = 366 * 24 * 3600.0


def positive_seconds(text: str) -> float:
    """A duration option: a finite number of seconds, more than 0 (`inf` would wait past any
    bound, `nan` compares false with everything), at most a year."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {one_line(text)!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds, not {text.strip()}")
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SECONDS:.0f} seconds (a year)")
    return value


def now() -> datetime:
    return datetime.now(UTC)


def error(message: str) -> None:
    # Server text (a defect, a refusal reason) may hold newlines or escape sequences.
    print(f"t3tui: {one_line(message)}", file=sys.stderr)


@contextlib.asynccontextmanager
async def supervised(
    args: argparse.Namespace, config: DetectorConfig | None = None,
    recorder: Recorder | None = None, target: Target | None = None,
) -> AsyncIterator[tuple[Session, Supervisor]]:
    """Connect to the server named by `args` (or `target`), sync every stream of interest,
    then yield. With `recorder`, every frame of the session is recorded (`recording_to`)."""
    if target is None:
        target = resolve_target(getattr(args, "url", None), getattr(args, "token", None),
                                token_file=getattr(args, "token_file", None))
    supervisor = Supervisor(config=config or DetectorConfig())
    session = Session(target, supervisor, recorder=recorder)
    runner = asyncio.create_task(session.run(), name="t3tui-session")
    try:
        # A refused port is an answer: say so within about a second (a server that is just
        # starting gets one retry) rather than after the whole --connect-timeout.
        state = await session.wait_synchronized(args.connect_timeout,
                                                refused_after=REFUSED_AFTER_S)
        if isinstance(state, Failed):
            await asyncio.gather(runner, return_exceptions=True)
            raise ClientError(state.reason)
        yield session, supervisor
    finally:
        await session.stop()
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)


@contextlib.contextmanager
def recording_to(path: str | None, args: argparse.Namespace) -> Iterator[Recorder | None]:
    """A recorder writing to `path` (None: no recording) for the server `args` name; closed
    (and removed when it never connected) on the way out. CommandError when it exists."""
    if not path:
        yield None
        return
    target = resolve_target(getattr(args, "url", None), getattr(args, "token", None),
                            token_file=getattr(args, "token_file", None))
    try:
        recorder = Recorder(path, url=target.base_url)
    except OSError as exc:
        raise CommandError(f"cannot record to {path}: {exc.strerror or exc}"
                           if not isinstance(exc, RecordingExists) else str(exc)) from None
    try:
        yield recorder
    finally:
        recorder.close()
        if recorder.stats.connections == 0:
            with contextlib.suppress(OSError):
                os.unlink(path)


@dataclass(frozen=True)
class OnThread:
    """A synchronized connection and the thread the command named."""

    session: Session
    supervisor: Supervisor
    view: SupervisorView
    row: ThreadRow

    @property
    def port(self) -> SessionPort:
        """What the shared actions (`t3tui.actions`) need of this connection; every thread it
        sends a command to is noted as acted on by the user (`--child`, `--parent`, `--tree`
        reach threads other than the one named)."""
        return NotingPort(self.session, self.supervisor)


class NotingPort(SessionPort):
    """A `SessionPort` that notes each thread it sends a command to in the acted log, before
    sending: a policy (`watch --act` elsewhere) leaves those threads alone for a while."""

    def _note(self, thread_id: object) -> None:
        if isinstance(thread_id, str) and thread_id:
            note_acted(self.session.target.base_url, thread_id, now())

    async def dispatch(self, command: Any, timeout: float) -> CommandOutcome:
        self._note(getattr(command, "thread_id", None))
        return await super().dispatch(command, timeout)

    async def checkin(self, thread_id: str, *, text: str | None, expect: str | None,
                      timeout_s: float | None, clock: Clock,
                      queue_if_busy: bool = True) -> CheckInVerdict:
        self._note(thread_id)
        return await super().checkin(thread_id, text=text, expect=expect, timeout_s=timeout_s,
                                     clock=clock, queue_if_busy=queue_if_busy)


def answered(outcome: Outcome, out: Console) -> bool:
    """False when the server refused (its words printed verbatim); raises CommandError when the
    outcome is unknown, since the command may or may not have been applied; True otherwise
    (the stream showed it, or did not in time: `outcome.ok` tells)."""
    if outcome.kind == "refused":
        line = Text("server refused: ", style="bold red").append(one_line(outcome.message or ""))
        if outcome.detail:
            line.append("\n" + display_text(outcome.detail))
        out.print(line)
        return False
    if outcome.kind == "unknown":
        raise CommandError(f"{outcome.command} outcome unknown: {outcome.message}")
    return True


SHUTDOWN_GRACE_S = 10.0


def exit_if_stuck(after_s: float, what: str) -> threading.Timer:
    """A run bounded by `--duration` ends by then however it got stuck: a task that swallows
    its cancellation (asyncio.run then waits for it forever) or a socket that will not close.
    After `after_s` the process says so in one line and exits 2, from a daemon thread."""
    def stop() -> None:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        os.write(2, f"t3tui: {what} did not stop within {SHUTDOWN_GRACE_S:g}s of its "
                    "--duration; exiting\n".encode())
        os._exit(EXIT_ERROR)

    timer = threading.Timer(after_s, stop)
    timer.daemon = True
    timer.start()
    return timer


@contextlib.contextmanager
def bounded_by(after_s: float | None, what: str) -> Iterator[None]:
    """`exit_if_stuck` for the run inside the block; a run that ended in time takes its bound
    with it (commands also run in-process, in the suite and in other programs)."""
    timer = exit_if_stuck(after_s, what) if after_s is not None else None
    try:
        yield
    finally:
        if timer is not None:
            timer.cancel()
            timer.join()  # gone now, not at its moment


def run_async(main: Callable[[], Awaitable[int]]) -> int:
    """Run a subcommand; every failure becomes one line on stderr and exit code 2 (1 for a
    refusal: the contract every command's help and the README state). SIGTERM and SIGHUP
    cancel it, so its cleanup runs (a recording closed, policies' runs ended), and the exit
    code is then 128+N, the shell's convention for a process ended by a signal."""
    signalled: list[int] = []

    async def until_signalled() -> int:
        task, loop = asyncio.current_task(), asyncio.get_running_loop()
        assert task is not None

        def on_signal(signum: int) -> None:
            signalled.append(signum)
            task.cancel()

        hooked = []
        for signum in (signal.SIGTERM, signal.SIGHUP):
            # only the main thread's loop can take signals (a command run in a worker thread,
            # as the tests run it, keeps the defaults)
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, on_signal, signum)
                hooked.append(signum)
        try:
            return await main()
        finally:
            for signum in hooked:
                loop.remove_signal_handler(signum)

    try:
        code = asyncio.run(until_signalled())
    except (asyncio.CancelledError, Refused, TargetError, ClientError, CommandError,
            TimeoutError) as exc:
        if signalled:  # whatever the cancelled command was saying: the signal ended it
            return 128 + signalled[0]
        if isinstance(exc, asyncio.CancelledError):
            raise
        if isinstance(exc, Refused):
            error(str(exc))
            return EXIT_FLAGGED
        error(str(exc) or describe(exc))
        return EXIT_ERROR
    return 128 + signalled[0] if signalled else code


def find_thread(view: SupervisorView, text: str) -> ThreadRow:
    """A thread by exact id, then unique id prefix, unique exact title, unique short id (what
    `status` prints: a child's clientRequestId, or an id cut in the middle)."""
    if not text.strip():
        # An empty prefix would match every thread: `settle ""` must not pick one.
        raise CommandError("no THREAD given: name a thread by id, prefix, short id or title")
    row = view.row(text)
    if row is not None:
        return row
    wanted = text.strip().casefold()
    for matches in (
        [r for r in view.rows if r.id.startswith(text)],
        [r for r in view.rows if r.title.strip().casefold() == wanted],
        [r for r in view.rows if matches_short(r.id, text.strip())],
    ):
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            ids = ", ".join(printable_ids(view, matches[:5]))
            raise CommandError(f"{text!r} matches {len(matches)} threads ({ids}); give an id")
    raise CommandError(f"no thread {text!r} on this server")


def printable_id(view: SupervisorView, row: ThreadRow) -> str:
    """What to print for a thread so that it can be given back as THREAD: its short id, as
    `status` prints it, unless that names another thread too; then its whole id."""
    shown = short_id(row.id)
    try:
        return shown if find_thread(view, shown).id == row.id else row.id
    except CommandError:
        return row.id


def printable_ids(view: SupervisorView, rows: list[ThreadRow]) -> list[str]:
    return [printable_id(view, r) for r in rows]

