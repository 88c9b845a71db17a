"""Named faults the reference backend can reproduce on demand (all off by default)."""

from __future__ import annotations

from collections.abc import Iterable

SETTLE_DROPS_CHILD_SUBSCRIPTION = "settle-drops-child-subscription"

FAULTS: dict[str, str] = {
    SETTLE_DROPS_CHILD_SUBSCRIPTION: (
        "Seed 004. Settling a parent detaches its provider session and also unloads (unsubscribes) "
        "the native threads of same-session delegated children, but clears only the parent's "
        "loaded-thread cache. The child's next turn skips the resume, so it completes in the "
        "provider (see the provider log) while the orchestration never hears of it: the run and "
        "the provider turn stay `running` and no assistant message arrives."
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
