"""Processes a test starts take Ctrl-C as from a terminal, however the suite was started.

A suite started as a background job of a non-interactive shell (`make test > log &` in a
script, without job control) runs with SIGINT and SIGQUIT ignored: POSIX has the shell ignore
them for an asynchronous command, and pytest, its workers and every process a test starts
inherit the ignore (a handler is reset to the default by exec; an ignore is kept). Measured
with each worker's /proc status at the start and end of every test file: SigIgn had SIGINT and
SIGQUIT from the first file's start, before any test ran, and never changed; the same files
run in the foreground, or under `timeout` (which handles them), had neither. No test or
library sets them. t3tui rightly keeps an inherited ignore (nohup's contract), so a test that
sends a child SIGINT starts it inside `as_from_a_terminal()`.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


@contextlib.contextmanager
def as_from_a_terminal() -> Iterator[None]:
    """Children started inside get SIGINT's and SIGQUIT's defaults (main thread only: the
    test's own process takes them so for that moment)."""
    previous = (signal.signal(signal.SIGINT, signal.default_int_handler),
                signal.signal(signal.SIGQUIT, signal.SIG_DFL))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous[0])
        signal.signal(signal.SIGQUIT, previous[1])
