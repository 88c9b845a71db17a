"""Child process of the soak benchmark: the app, headless (`App.run_test()`), on a server.

`python -m benchmarks.soak_app URL THREADS`: prints `READY` once the tree holds every
thread, then runs (the real clock, as a user's app would) until its stdin closes. It takes
the process's garbage-collector policy as the CLI's start does for the app
(`t3tui.client.collector`).
"""

from __future__ import annotations

import asyncio
import sys

from t3tui.client import collector
from t3tui.client.secret import Secret, Target
from t3tui.tui.app.app import SupervisorApp
from t3tui.tui.sources.source import LiveSource
from t3tui.tui.widgets.thread_tree import ThreadTree

SIZE = (140, 45)


async def main_async(url: str, threads: int) -> None:
    app = SupervisorApp(LiveSource(Target(url, Secret("bench-token")), ping_interval=60.0))
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    async with app.run_test(size=SIZE):
        tree = app.query_one(ThreadTree)
        while len(tree.nodes) < threads:
            await asyncio.sleep(0.05)
        print("READY", flush=True)
        while await stdin.readline():
            pass


def main(argv: list[str]) -> int:
    collector.configure()
    asyncio.run(main_async(argv[0], int(argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
