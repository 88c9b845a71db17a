"""Named faults the reference backend can reproduce on demand (all off by default)."""

from __future__ import annotations

from collections.abc import Iterable

SETTLE_DROPS_CHILD_SUBSCRIPTION = "settle-drops-child-subscription"
INTERRUPT_NEVER_LANDS = "interrupt-never-lands"
PROVIDER_RUNS_ON_AFTER_INTERRUPT = "provider-runs-on-after-interrupt"
COHORT_WAKE_CAP = "cohort-wake-cap"

FAULTS: dict[str, str] = {
    SETTLE_DROPS_CHILD_SUBSCRIPTION: (
        "Seed 004. Settling a parent detaches its provider session and also unloads (unsubscribes) "
        "the native threads of same-session delegated children, but clears only the parent's "
        "loaded-thread cache. The child's next turn skips the resume, so it completes in the "
        "provider (see the provider log) while the orchestration never hears of it: the run and "
        "the provider turn stay `running` and no assistant message arrives."
    ),
    INTERRUPT_NEVER_LANDS: (
        "T3 #4524/#7722. The provider accepts a turn interrupt and keeps going: run.interrupt is "
        "acknowledged and a run_interrupt_request item is recorded, but no run_interrupt_result "
        "follows and the run stays `running` (a forced provider-session.detach still ends it)."
    ),
    PROVIDER_RUNS_ON_AFTER_INTERRUPT: (
        "T3 #5587. run.interrupt ends the run `interrupted` at once, but the provider ignores the "
        "interrupt: its turn stays `running`, its provider thread `active`, and the turn's "
        "processes keep running (and using CPU) until the turn ends on its own or its session is "
        "detached (a forced stop, a settle), which stops them."
    ),
    COHORT_WAKE_CAP: (
        "T3 #12285 (older builds). A parent run's wake cohort delivers at most two wakes "
        "(settledDeliveryCount); a later child's completion stays `pending` and the parent is "
        "never told."
    ),
}


class UnknownFault(ValueError):
    """A fault name that the backend does not implement."""


def check_faults(names: Iterable[str]) -> frozenset[str]:
    """Validate fault names, returning them as a frozenset."""
    result = frozenset(names)
    unknown = sorted(result - FAULTS.keys())
    if unknown:
        known = ", ".join(sorted(FAULTS))
        raise UnknownFault(f"unknown fault {', '.join(unknown)!s}; known faults: {known}")
    return result
