"""Which threads are watched for what they do, not only for the family they belong to.

Most T3 threads are top level, and they are the ones a user presses Stop on: a thread whose
run is active or blocked, that waits for a runtime request, whose stop was asked and not
answered, or whose provider still runs after the run ended, is watched (its stream held) like
a delegated child; so is one whose run ended within the watch window (twice the longest dwell
of a rule that reads the stream's items, so that a one-shot `status` started just after the
dwell still sees it). A thread is released once it has been quiet past that window.

The clock is the streams' own: the latest time any applied item carried (the model has no
clock). Streams are capped (`DetectorConfig.watch_cap`): past the cap, the least recently
active threads are not watched, and `Watching` says how many, instead of pretending.
"""

from __future__ import annotations

import heapq
from datetime import UTC, datetime, timedelta

from t3tui.model.config import DetectorConfig
from t3tui.model.facts import OwnFacts
from t3tui.model.index import TreeIndex
from t3tui.model.rows import Watching
from t3tui.model.wire import latest

WATCH_CAP_ENV = "T3TUI_WATCH_CAP"  # read by the client, where a cap is configured


def watch_window_s(config: DetectorConfig) -> float:
    """How long a thread stays watched after its run ended (see the module doc)."""
    return 2 * max(config.provider_after_interrupt_dwell_s, config.provider_unheard_dwell_s,
                   config.provider_finished_dwell_s, config.interrupt_landing_dwell_s)


Families = tuple[int, dict[str, bool], frozenset[str]]  # (tree shape, shown as looked, answer)


def families(ix: TreeIndex, kept: Families | None, changed: set[str]) -> Families:
    """Every visible parent and every visible child. The `kept` answer stands unless parent
    links or task rows changed, or a thread in `changed` changed whether it is shown (not
    O(families))."""
    if kept is not None and kept[0] == ix.shape and all(
            _shown(ix, t) == shown for t in changed if (shown := kept[1].get(t)) is not None):
        return kept
    out = set()
    looked: dict[str, bool] = {}

    def shown(thread_id: str) -> bool:
        if thread_id not in looked:
            looked[thread_id] = _shown(ix, thread_id)
        return looked[thread_id]

    for parent, kids in ix.children.items():
        for kid in kids:
            if shown(kid):
                out.add(kid)
                if shown(parent):
                    out.add(parent)
    # Threads holding task rows, from the task index: not a walk over every record.
    for parent in set(ix.task_parent.values()):
        if shown(parent):
            out.add(parent)
    return ix.shape, looked, frozenset(out)  # frozen: the caller cannot change it


def _shown(ix: TreeIndex, thread_id: str) -> bool:
    own = ix.own(thread_id)
    return own.visible if own.has_record else thread_id in ix.child_task


def busy(f: OwnFacts) -> bool:
    """Doing something now: an active or blocked run, a pending request, a stop asked and not
    answered, or provider parts running after the run ended."""
    return (f.activity is not None or f.pending is not None or f.interrupt_asked is not None
            or f.runaway is not None)


class Activity:
    """Thread -> when it went quiet (None: busy now), kept from the facts of threads that
    changed; an expiry heap releases the quiet ones as the streams' clock passes the window."""

    def __init__(self, window_s: float) -> None:
        self.window = timedelta(seconds=window_s)
        self.quiet: dict[str, datetime | None] = {}
        self.recency: dict[str, datetime] = {}
        self.clock: datetime | None = None
        self.over = False  # the last answer left threads unwatched
        self._expiry: list[tuple[datetime, str]] = []

    def note(self, thread_id: str, f: OwnFacts | None) -> bool:
        """Take a thread's new facts (None: no record any more); True when the set changed."""
        was = thread_id in self.quiet
        if f is None or not f.has_record:
            self.quiet.pop(thread_id, None)
            self.recency.pop(thread_id, None)
            return was
        ended = f.run_completed_at
        if busy(f):
            self.quiet[thread_id] = None
        elif ended is not None and (self.clock is None or ended + self.window > self.clock):
            self.quiet[thread_id] = ended
            heapq.heappush(self._expiry, (ended + self.window, thread_id))
        else:  # neither busy nor recently quiet: most threads of a big tree
            if was:
                del self.quiet[thread_id]
                self.recency.pop(thread_id, None)
            return was
        # recency from the shell row alone: the same whether the stream is held or not, so
        # that dropping a stream does not change which threads the cap keeps
        seen = latest(f.shell_updated_at, f.run_started_at, f.run_completed_at)
        before, self.recency[thread_id] = self.recency.get(thread_id), seen or _NEVER
        # past the cap, who is kept depends on recency: a new one may change the answer
        return not was or (self.over and before != self.recency[thread_id])

    def advance(self, f: OwnFacts) -> None:
        """Move the streams' clock to the latest time these facts carry (before any `note` of
        the same batch, so that the answer does not depend on the order threads are taken)."""
        # (`latest` of the clock and the four, written out: a first tree moves it for every
        # thread)
        clock = self.clock
        for at in (f.shell_updated_at, f.run_started_at, f.run_completed_at,
                   f.agent_progress_at):
            if at is not None and (clock is None or at > clock):
                clock = at
        self.clock = clock

    def expire(self) -> bool:
        """Release the threads quiet past the window by the streams' clock; True if any."""
        gone = False
        while self._expiry and self.clock is not None and self._expiry[0][0] <= self.clock:
            at, thread_id = heapq.heappop(self._expiry)
            since = self.quiet.get(thread_id)
            if since is not None and since + self.window == at:
                del self.quiet[thread_id]
                self.recency.pop(thread_id, None)
                gone = True
        return gone

    def watched(self, families: frozenset[str], cap: int) -> tuple[frozenset[str], Watching]:
        """Families plus the busy or recently quiet threads, the most recently active first
        while streams (families included) stay within `cap`."""
        extra = [t for t in self.quiet if t not in families]
        room = max(0, cap - len(families))
        if len(extra) > room:
            extra.sort(key=lambda t: (self.recency.get(t, _NEVER), t), reverse=True)
            extra = extra[:room]
        self.over = len(extra) < len(self.quiet) - sum(1 for t in self.quiet if t in families)
        out = families.union(extra)
        active = len(self.quiet)
        return out, Watching(active, sum(1 for t in self.quiet if t in out), cap)


_NEVER = datetime(1970, 1, 1, tzinfo=UTC)
