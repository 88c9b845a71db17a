"""The supervisor's output: one row per thread, in tree order, plus counts and findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from t3tui.model.findings import Finding

# Primary states, in precedence order (first match wins; see docs/ARCHITECTURE.md "model/").
NEEDS_INPUT: Final = "needs-input"
STUCK_STATE: Final = "stuck"
CREATING: Final = "creating"
QUEUED: Final = "queued"
RUNNING: Final = "running"
DRAINING: Final = "draining"
WAITING: Final = "waiting"
ORPHANED: Final = "orphaned"
DONE: Final = "done"
SETTLED: Final = "settled"
IDLE: Final = "idle"
STATES: Final[tuple[str, ...]] = (
    NEEDS_INPUT, STUCK_STATE, CREATING, QUEUED, RUNNING, DRAINING, ORPHANED, WAITING, DONE,
    SETTLED, IDLE,
)



# Part of the view (how many active threads have their stream held); `model/interest` counts it.
@dataclass(frozen=True)
class Watching:
    """Threads with activity, and how many of them have their stream held."""

    active: int
    watched: int
    cap: int

    @property
    def unwatched(self) -> int:
        return self.active - self.watched

    def describe(self) -> str:
        return f"watching {self.watched} of {self.active} active threads"

@dataclass(frozen=True)
class PendingRequest:
    """An approval or question the thread is blocked on (`runtime-request.respond` target)."""

    id: str
    kind: str
    created_at: datetime | None


@dataclass(frozen=True)
class TaskInfo:
    """The parent's task row for a delegated child (published facts, not live status)."""

    task_id: str
    parent_thread_id: str
    parent_run_id: str | None
    client_request_id: str | None
    title: str | None
    origin: str | None                 # app_owned | provider_native
    mode: str                          # "wait" | "async" (from completionWake history)
    completion_wake: str               # always | settled_only
    timeout_ms: int | None             # from the delegate_task tool input when visible
    wait_result: str | None            # wait mode: "open" | "returned" | "timed_out"
    wait_returned_at: datetime | None
    status: str | None                 # the row's published status
    delivery: str | None               # completionDelivery.state
    started_at: datetime | None
    completed_at: datetime | None
    result_published: bool             # a subagent_result transfer exists (or terminal row)
    result: str | None = None          # the published result text (untrusted agent text)
    cohort: str | None = None          # the spawning parent run's wake disposition


@dataclass(frozen=True)
class ThreadRow:
    """One thread as the supervisor sees it. Text fields are untrusted plain text."""

    id: str
    title: str
    parent_id: str | None
    depth: int
    children: tuple[str, ...]
    state: str
    state_reason: str
    state_since: datetime | None
    settled: bool
    run_status: str | None             # shell `status` (latest run) or derived from runs[]
    activity_run_status: str | None
    active_run_id: str | None
    run_started_at: datetime | None
    provider: str | None
    model: str | None
    origin: str | None                 # app_owned | provider_native | None (top level)
    creation_source: str | None
    location: str                      # active | archive | unknown (task row only)
    orphan: bool                       # has a parent link but the parent is not visible
    task: TaskInfo | None
    pending_request: PendingRequest | None
    latest_message: str | None         # one-line preview (untrusted text)
    last_activity_at: datetime | None
    overlays: tuple[str, ...]          # settled, orphaned-delivery, stuck?, serialized, runaway, ...
    child_counts: dict[str, int] = field(hash=False, compare=False)
    findings: tuple[Finding, ...] = ()
    subscribed: bool = False           # the thread's projection is known


@dataclass(frozen=True)
class SupervisorView:
    """A consistent picture at `now`: rows in tree order, counts by state, ranked findings."""

    now: datetime
    rows: tuple[ThreadRow, ...]
    findings: tuple[Finding, ...]
    counts: dict[str, int] = field(hash=False, compare=False)
    synchronized: bool = False
    by_id: dict[str, ThreadRow] = field(default_factory=dict, hash=False, compare=False)
    # threads with activity and how many have their stream held (None: no client asked)
    watching: Watching | None = field(default=None, hash=False, compare=False)

    def row(self, thread_id: str) -> ThreadRow | None:
        return self.by_id.get(thread_id)

    def unsettled_descendants(self, thread_id: str) -> list[ThreadRow]:
        """Every unsettled, unarchived descendant of a thread, depth first in tree order.

        Settling a parent leaves these as they are; the settle guards (CLI and app) list them.
        """
        found: list[ThreadRow] = []
        root = self.by_id.get(thread_id)
        stack = list(reversed(root.children)) if root is not None else []
        while stack:
            child = self.by_id.get(stack.pop())
            if child is None:
                continue
            if not child.settled and child.location != "archive":
                found.append(child)
            stack.extend(reversed(child.children))
        return found

    @property
    def exit_code(self) -> int:
        """0 when nothing is flagged, 1 when any finding holds (stuck, serialized, phantom, ...).

        The `t3tui status --json` document is `model.status_json.status_document(view, url)`,
        a function of its own so that this module does not import the one that renders it."""
        return 1 if self.findings else 0
