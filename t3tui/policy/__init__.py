"""Unattended supervision: policies that act on findings when nobody is watching.

Pure parts (no I/O but the policy file, no front end): the format (`load`, `spec`), finding
occurrences (`occurrences`), the decision with every guard (`decide`), the journal of what was
decided and done (`journal`) and the kill switch (`switch`). Running a decision's actions goes
through `t3tui.actions`, the one actions layer, in `run` (front ends call it; they never send a
policy's commands themselves).

    policies = load_file(path)                     # or recommended(); PolicyError: one line
    occ = Occurrences(); occ.start(first_synchronized_at)
    seen = occ.update(view.findings, now, supervisor.thread_synchronized)
    for decision in decide(policies, seen, now, Situation(live, synced), user_acted, journal):
        ...                                        # act / dry-run / skip, already journaled
"""

from t3tui.policy.decide import Situation, decide
from t3tui.policy.journal import Decision, Journal, Step
from t3tui.policy.load import RECOMMENDED_TOML, load_file, parse_policies, parse_text, recommended
from t3tui.policy.occurrences import Occurrences, Seen
from t3tui.policy.spec import (
    ACTIONS,
    Limits,
    Notify,
    Policy,
    PolicyError,
    PolicySet,
    format_duration,
    parse_duration,
)
from t3tui.policy.switch import PolicyFile, Switch

__all__ = [
    "ACTIONS",
    "RECOMMENDED_TOML",
    "Decision",
    "Journal",
    "Limits",
    "Notify",
    "Occurrences",
    "Policy",
    "PolicyError",
    "PolicyFile",
    "PolicySet",
    "Seen",
    "Situation",
    "Step",
    "Switch",
    "decide",
    "format_duration",
    "load_file",
    "parse_duration",
    "parse_policies",
    "parse_text",
    "recommended",
]
