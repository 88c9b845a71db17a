"""What ends a finding, in people's words: the action a front end offers for it.

Only findings with one remedy t3tui can send have one here; the front end adds how to start
it (the app's key, the CLI's command line)."""

from __future__ import annotations

from typing import Final

from t3tui.model import Finding
from t3tui.model.findings import RUNAWAY_PROVIDER

REMEDIES: Final = {
    # T3 #5587: the run ended, so an interrupt has nothing to act on; the detach ends the
    # provider turn that runs on (and a settle, which also detaches, shelves the thread too)
    RUNAWAY_PROVIDER: ("the forced stop ends it: it detaches the thread's provider session "
                       "(other threads sharing that session lose it too)"),
}


def remedy(finding: Finding) -> str | None:
    """The one action that ends `finding`, or None when there is none to name."""
    return REMEDIES.get(finding.kind)
