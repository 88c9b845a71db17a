"""Headless commands over several environments (`--env NAME=URL`, `[environments.NAME]`).

Every environment is connected at once, each with its own `--connect-timeout`; one that
cannot be reached is reported (`Reached.error`) and never holds up the others. A THREAD may
be qualified `NAME:THREAD`; a bare THREAD is looked for in every environment and must be
found in exactly one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass

from t3tui.client.environments import Environment, resolve_environments, split_qualified
from t3tui.client.errors import ClientError, describe
from t3tui.client.secret import URL_ENV, TargetError
from t3tui.client.session import Session
from t3tui.headless.common import CommandError, OnThread, find_thread, now, supervised
from t3tui.model import Supervisor


def environments_of(args: argparse.Namespace) -> list[Environment]:
    """The environments `args` name (empty: one server, by --url or T3TUI_URL)."""
    flags = getattr(args, "envs", None)
    url_given = bool(getattr(args, "url", None) or any(os.environ.get(n) for n in URL_ENV))
    if flags and getattr(args, "url", None):
        raise TargetError("give either --url or --env, not both")
    return resolve_environments(flags, getattr(args, "config", None),
                                use_config_alone=not url_given)


@dataclass
class Reached:
    """One environment after connecting: its session and supervisor, or why not."""

    name: str
    url: str
    session: Session | None = None
    supervisor: Supervisor | None = None
    error: str | None = None


@contextlib.asynccontextmanager
async def connect_all(args: argparse.Namespace,
                      envs: list[Environment]) -> AsyncIterator[list[Reached]]:
    """Connect to every environment at once and sync it; yields one `Reached` each, in order."""
    async with contextlib.AsyncExitStack() as stack:

        async def one(env: Environment) -> Reached:
            try:
                session, supervisor = await stack.enter_async_context(
                    supervised(args, target=env.target))
            except (ClientError, TimeoutError, OSError) as exc:
                return Reached(env.name, env.target.base_url, error=str(exc) or describe(exc))
            return Reached(env.name, env.target.base_url, session, supervisor)

        # entered one by one into the stack, but they connect concurrently
        yield list(await asyncio.gather(*(one(e) for e in envs)))


@contextlib.asynccontextmanager
async def on_env_thread(args: argparse.Namespace,
                        envs: list[Environment]) -> AsyncIterator[OnThread]:
    """The thread `args.thread` names, in its environment (see the module docstring)."""
    names = [e.name for e in envs]
    name, text = split_qualified(args.thread, names)
    wanted = [e for e in envs if e.name == name] if name else envs
    async with connect_all(args, wanted) as reached:
        found: list[tuple[Reached, OnThread]] = []
        unreachable = [r for r in reached if r.error is not None]
        if name and unreachable:
            raise ClientError(f"environment {name}: {unreachable[0].error}")
        for r in reached:
            if r.session is None or r.supervisor is None:
                continue
            view = r.supervisor.view(now())
            try:
                row = find_thread(view, text)
            except CommandError:
                if name:
                    raise CommandError(f"no thread {text!r} in environment {name}") from None
                continue
            found.append((r, OnThread(r.session, r.supervisor, view, row)))
        if len(found) > 1:
            where = " and ".join(r.name for r, _ in found)
            raise CommandError(f"{text!r} is in {where}: qualify it as NAME:{text}")
        if not found:
            down = "".join(f"; {r.name} unreachable: {r.error}" for r in unreachable)
            raise CommandError(f"no thread {text!r} in any environment "
                               f"({', '.join(names)}){down}")
        yield found[0][1]
