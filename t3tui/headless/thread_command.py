"""Running a subcommand that acts on one THREAD: connect (to the one server, or to the
environment the thread is in), find the thread, run the command's body.

A module of its own, above `common` and `environments`: both are needed here, and
`environments` builds on `common`, so `common` cannot hold this without an import circle.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from rich.console import Console

from t3tui.headless.common import OnThread, find_thread, now, run_async, supervised
from t3tui.headless.environments import environments_of, on_env_thread
from t3tui.headless.render import console
from t3tui.policy.acted import note_acted


@contextlib.asynccontextmanager
async def on_thread(args: argparse.Namespace) -> AsyncIterator[OnThread]:
    """`supervised`, then the thread `args.thread` names (CommandError when none or several).
    With several environments, the one the thread is in (`NAME:THREAD`, or found in one)."""
    envs = environments_of(args)
    if envs:
        async with on_env_thread(args, envs) as on:
            yield on
        return
    async with supervised(args) as (session, supervisor):
        view = supervisor.view(now())
        yield OnThread(session, supervisor, view, find_thread(view, args.thread))


def run_on_thread(
    args: argparse.Namespace,
    body: Callable[[OnThread, Console, argparse.Namespace], Awaitable[int]],
) -> int:
    """Run a THREAD subcommand: connect, find the thread; `body(on, out, args)` gives the
    exit code."""
    out = console()

    async def main() -> int:
        async with on_thread(args) as on:
            # a policy (`watch --act` elsewhere) leaves a thread the user acts on alone
            note_acted(on.session.target.base_url, on.row.id, now())
            return await body(on, out, args)

    return run_async(main)
