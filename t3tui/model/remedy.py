"""What ends a finding, in people's words: the action a front end offers for it.

Only findings with one remedy t3tui can send have one here. The sentence is written once and
every front end shows it as is: the app's detail pane (with its key), `t3tui status`, plain
`t3tui interrupt` on a runaway and the triage report (with `remedy_command`, the command
line that starts it). It lives in the model, not in `words`, because the model's own JSON
documents (`status --json`, `report --json`) carry it as each finding's `remedy`."""

from __future__ import annotations

from typing import Final

from t3tui.model.findings import RUNAWAY_PROVIDER, Finding

REMEDIES: Final = {
    # T3 #5587: the run ended, so an interrupt has nothing to act on; the detach ends the
    # provider turn that runs on (and a settle, which also detaches, shelves the thread too)
    RUNAWAY_PROVIDER: ("the forced stop ends it: it detaches the thread's provider session "
                       "(other threads sharing that session lose it too)"),
}
# the CLI command that starts each remedy; THREAD is what the user gives back (a short id)
COMMANDS: Final = {RUNAWAY_PROVIDER: "t3tui interrupt {thread} --force"}


def remedy(finding: Finding) -> str | None:
    """The one action that ends `finding`, or None when there is none to name."""
    return REMEDIES.get(finding.kind)


def remedy_command(finding: Finding, thread: str) -> str | None:
    """The command line that starts `finding`'s remedy on `thread` (as the user would type
    it), or None when it has none."""
    command = COMMANDS.get(finding.kind)
    return None if command is None else command.format(thread=thread)
