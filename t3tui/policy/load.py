"""Policy files: TOML read and checked up front, and the recommended set.

Everything is checked before anything runs: an unknown finding or rule, action, key or
duration, or an interrupt on a finding whose run already ended, is one `PolicyError` line naming
the file and the entry (`policy 2 (when = "no-progres")`), and no policy of that file is
used.

    [policies]                # optional; the defaults are the conservative ones shown
    per_thread = 2            # runs on one thread ...
    per_thread_period = "1h"  # ... within this long
    per_hour = 10             # runs on all threads within any hour
    user_quiet = "5m"         # hold off a thread the user acted on from t3tui this recently

    [[policy]]
    when = "no-progress"      # a finding kind or a rule id
    after = "10m"             # t3tui has seen the finding hold this long
    do = ["checkin"]          # actions, in order (a string for one)
    [[policy]]
    when = "undelivered-result"
    after = "5m"
    do = "notify"
    notify = { url = "http://127.0.0.1:9000/hook" }   # or command = ["notify-send", "t3tui"]
"""

from __future__ import annotations

import shlex
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from t3tui.policy.spec import (
    ACTIONS,
    KINDS,
    NEEDS_ACTIVE_RUN,
    RULES,
    RUN_ENDED,
    Limits,
    Notify,
    Policy,
    PolicyError,
    PolicySet,
    normal_when,
    parse_duration,
)

# The set `--act` switches on when no policy is written anywhere: only findings proved beyond
# doubt, each with a dwell on top of its detector's own, each ending at the least destructive
# step that undoes the fault.
RECOMMENDED_TOML: Final = """\
[[policy]]
when = "provider-finished-unheard"  # the provider's own record says the turn ended
after = "30s"
do = ["interrupt", "forward"]       # end the lost run, then hand its answer to the parent
[[policy]]
when = "interrupt-not-landed"       # a stop was accepted but the run is still active
after = "30s"
do = "force-stop"                   # detach its provider session
"""

POLICY_KEYS: Final = frozenset({"when", "after", "do", "notify"})
LIMIT_KEYS: Final = {"per_thread": "count", "per_thread_period": "duration",
                     "per_hour": "count", "user_quiet": "duration"}
SECTIONS: Final = frozenset({"policy", "policies"})


def _entry(number: int, raw: Any, where: str) -> Policy:
    if not isinstance(raw, Mapping):
        raise PolicyError(f"{where}: policy {number}: is not a table ([[policy]])")
    label = f"policy {number}"
    if isinstance(raw.get("when"), str):
        label += f" (when = {raw['when']!r})"
    at = f"{where}: {label}"
    unknown = sorted(set(raw) - POLICY_KEYS)
    if unknown:
        raise PolicyError(f"{at}: unknown key {unknown[0]!r} (known: {', '.join(sorted(POLICY_KEYS))})")
    for key in ("when", "after", "do"):
        if key not in raw:
            raise PolicyError(f"{at}: missing {key!r}")
    when = raw["when"]
    if not isinstance(when, str) or normal_when(when) is None:
        raise PolicyError(f"{at}: unknown finding or rule {when!r} (rules: "
                          f"{', '.join(sorted(RULES))}; kinds: {', '.join(sorted(KINDS))})")
    try:
        after = parse_duration(raw["after"])
    except PolicyError as exc:
        raise PolicyError(f"{at}: after: {exc}") from None
    do = raw["do"]
    steps = [do] if isinstance(do, str) else do
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
        raise PolicyError(f"{at}: do: give an action or a list of actions")
    for step in steps:
        if step not in ACTIONS:
            raise PolicyError(f"{at}: unknown action {step!r} (known: {', '.join(ACTIONS)})")
    stop = next((s for s in steps if s in NEEDS_ACTIVE_RUN), None)
    if stop is not None and normal_when(when) in RUN_ENDED:
        raise PolicyError(f"{at}: {stop} needs an active run, and this finding is about a run "
                          "that already ended (its provider runs on): use force-stop")
    if len(set(steps)) != len(steps):
        raise PolicyError(f"{at}: do names an action twice")
    notify = _notify(raw.get("notify"), at)
    if ("notify" in steps) != (notify is not None):
        raise PolicyError(f"{at}: 'notify' in do and a notify table go together")
    return Policy(number, normal_when(when) or when, after, tuple(steps), notify)


def _notify(raw: Any, at: str) -> Notify | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) - {"command", "url"} or len(raw) != 1:
        raise PolicyError(f"{at}: notify takes one of command = [...] or url = \"http...\"")
    if "url" in raw:
        url = raw["url"]
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise PolicyError(f"{at}: notify url must start with http:// or https://")
        return Notify(url=url)
    command = raw["command"]
    argv = shlex.split(command) if isinstance(command, str) else command
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise PolicyError(f"{at}: notify command must be a command line or a list of words")
    return Notify(command=tuple(argv))


def _limits(raw: Any, where: str) -> Limits:
    if raw is None:
        return Limits()
    if not isinstance(raw, Mapping):
        raise PolicyError(f"{where}: [policies] must be a table")
    values: dict[str, Any] = {}
    for key, value in raw.items():
        kind = LIMIT_KEYS.get(key)
        if kind is None:
            raise PolicyError(f"{where}: [policies]: unknown key {key!r} "
                              f"(known: {', '.join(LIMIT_KEYS)})")
        if kind == "count":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise PolicyError(f"{where}: [policies] {key}: a whole number >= 0, not {value!r}")
            values[key] = value
        else:
            try:
                values[f"{key}_s"] = parse_duration(value)
            except PolicyError as exc:
                raise PolicyError(f"{where}: [policies] {key}: {exc}") from None
    return Limits(**values)


def parse_policies(doc: Mapping[str, Any], where: str, *, only_policies: bool = True) -> PolicySet:
    """A parsed TOML document -> its `PolicySet` (no `[[policy]]`: the recommended set, with
    the document's limits). `only_policies`: a policy file holds nothing else; the app's config
    file has other sections, which its own loader checks."""
    if only_policies:
        unknown = sorted(set(doc) - SECTIONS)
        if unknown:
            raise PolicyError(f"{where}: unknown section {unknown[0]!r} "
                              "(a policy file holds [[policy]] entries and [policies])")
    limits = _limits(doc.get("policies"), where)
    entries = doc.get("policy")
    if entries is None:
        return PolicySet(recommended().policies, limits, "recommended")
    if not isinstance(entries, list):
        raise PolicyError(f"{where}: policy must be an array of tables ([[policy]])")
    return PolicySet(tuple(_entry(n, raw, where) for n, raw in enumerate(entries, 1)),
                     limits, where)


def parse_text(text: str, where: str, *, only_policies: bool = True) -> PolicySet:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{where}: not valid TOML: {exc}") from None
    return parse_policies(doc, where, only_policies=only_policies)


def load_file(path: Path, *, only_policies: bool = True) -> PolicySet:
    """Read and check a policy file (or the app's config file with `only_policies=False`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PolicyError(f"{path}: no such policy file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"{path}: cannot read: {exc}") from None
    return parse_text(text, str(path), only_policies=only_policies)


def recommended() -> PolicySet:
    doc = tomllib.loads(RECOMMENDED_TOML)
    entries = doc["policy"]
    return PolicySet(tuple(_entry(n, raw, "recommended") for n, raw in enumerate(entries, 1)))
