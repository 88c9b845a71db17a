"""What every headless subcommand shares: server flags, connect-and-sync, errors, exit codes."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime

from t3tui.client.errors import ClientError, describe
from t3tui.client.secret import TargetError, resolve_target
from t3tui.client.session import Session
from t3tui.client.state import Failed
from t3tui.model import DetectorConfig, Supervisor, SupervisorView, ThreadRow

EXIT_OK = 0
EXIT_FLAGGED = 1
EXIT_ERROR = 2


class CommandError(Exception):
    """A reason to stop with exit code 2 and a one-line message (bad input, not found)."""


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """`--url`/`--token` after the subcommand too; SUPPRESS keeps values given before it."""
    parser.add_argument(
        "--url", default=argparse.SUPPRESS, help="server URL (env: T3TUI_URL, T3CODE_URL)"
    )
    parser.add_argument(
        "--token",
        default=argparse.SUPPRESS,
        help="bearer token (env: T3TUI_TOKEN, T3CODE_TOKEN); never printed",
    )
    parser.add_argument(
        "--connect-timeout",
        type=positive_seconds,
        default=15.0,
        metavar="S",
        help="give up when not connected and synchronized within S seconds (default: 15)",
    )


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def now() -> datetime:
    return datetime.now(UTC)


def error(message: str) -> None:
    print(f"t3tui: {message}", file=sys.stderr)


@contextlib.asynccontextmanager
async def supervised(
    args: argparse.Namespace, config: DetectorConfig | None = None
) -> AsyncIterator[tuple[Session, Supervisor]]:
    """Connect to the server named by `args`, sync every stream of interest, then yield."""
    target = resolve_target(getattr(args, "url", None), getattr(args, "token", None))
    supervisor = Supervisor(config=config or DetectorConfig())
    session = Session(target, supervisor)
    runner = asyncio.create_task(session.run(), name="t3tui-session")
    try:
        state = await session.wait_synchronized(args.connect_timeout)
        if isinstance(state, Failed):
            await asyncio.gather(runner, return_exceptions=True)
            raise ClientError(state.reason)
        yield session, supervisor
    finally:
        await session.stop()
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)


def run_async(main: Callable[[], Awaitable[int]]) -> int:
    """Run a subcommand; every failure becomes one line on stderr and exit code 2."""
    try:
        return asyncio.run(main())
    except (TargetError, ClientError, CommandError, TimeoutError) as exc:
        error(str(exc) or describe(exc))
        return EXIT_ERROR


def find_thread(view: SupervisorView, text: str) -> ThreadRow:
    """A thread by exact id, then by unique id prefix, then by unique exact title."""
    row = view.row(text)
    if row is not None:
        return row
    for matches in (
        [r for r in view.rows if r.id.startswith(text)],
        [r for r in view.rows if r.title.strip().casefold() == text.strip().casefold()],
    ):
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            ids = ", ".join(r.id for r in matches[:5])
            raise CommandError(f"{text!r} matches {len(matches)} threads ({ids}); give an id")
    raise CommandError(f"no thread {text!r} on this server")
