"""The process's policy for Python's cyclic garbage collector, set where the app and the CLI
start (`configure`); a library user (tests, benchmarks) keeps the interpreter's defaults.

A large tree is a large, long-lived heap: at 10,000 threads the model holds ~150,000 objects
the collector tracks, and with the default thresholds the first sync ran ~330 collections,
two of them full ones walking everything (about 0.4 s each on a shared machine), so a frame
could stall behind one at any time afterwards. Two measures:

- a first-generation threshold of `GEN0` allocations instead of 700: the objects of a parsed
  frame mostly die by reference count before the collector would look at them (10,000 threads,
  one sync and first frame: 0.58 + 0.80 s CPU -> 0.44 + 0.53 s, 334 collections -> 22);
- `gc.freeze()` once, after the first complete sync (`synced`): what exists then (the model's
  tree, the app's widgets) is moved out of the collector's sight, so later full collections
  walk only what came after.

Frozen objects are still freed by reference counting when nothing holds them (the model's data
is dicts, lists, tuples and frozen dataclasses: no cycles), so a thread that changes or goes
away does not keep its old data. Only a reference cycle among frozen objects is never
collected; freezing once bounds that to what existed at that moment: it cannot grow with time.
"""

from __future__ import annotations

import gc

GEN0 = 10_000

_configured = False
_frozen = False
_before = gc.get_threshold()


def configure() -> None:
    """Take the policy for this process (the CLI's start, for every command but `serve`)."""
    global _configured, _before
    if not _configured:
        _before = gc.get_threshold()
    gc.set_threshold(GEN0, 10, 10)
    _configured = True


def synced() -> None:
    """Every stream is synchronized for the first time in this process: freeze what is held
    (once; later syncs, after a reconnect, freeze nothing). Does nothing without `configure`."""
    global _frozen
    if not _configured or _frozen:
        return
    _frozen = True
    gc.collect(1)  # the young garbage goes first: freeze only what stays
    gc.freeze()


def reset() -> None:
    """The collector as it was before `configure` (for tests of this policy)."""
    global _configured, _frozen
    gc.unfreeze()
    gc.set_threshold(*_before)
    _configured = _frozen = False
