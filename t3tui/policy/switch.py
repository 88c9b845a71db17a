"""The kill switch: whether the policies may act now, and the policy file re-read safely.

Three ways to stop every policy at once: a key in the app, a signal for `watch --act`
(SIGUSR1 switches off and on), and the policy file: removed, it switches the policies off;
changed, it is read again and checked whole, and until a version that checks is in place the
policies stay off (a half-written file never runs).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from t3tui.policy.load import load_file, recommended
from t3tui.policy.spec import PolicyError, PolicySet


@dataclass(frozen=True)
class Change:
    """What `PolicyFile.check` found: `on` (may the policies act), `text` (one line to show),
    `policies` (the set now in force, when the file was read again)."""

    on: bool
    text: str
    policies: PolicySet | None = None


class PolicyFile:
    """A policy file watched by its identity (inode, size, mtime); `check()` is cheap when
    nothing changed (one `stat`)."""

    def __init__(self, path: Path, *, only_policies: bool = True) -> None:
        self.path = path
        self.only_policies = only_policies
        self._stamp = self._stat()

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def check(self) -> Change | None:
        """None when the file is as last seen; else what its change means."""
        stamp = self._stat()
        if stamp == self._stamp:
            return None
        self._stamp = stamp
        if stamp is None:
            return Change(False, f"policies off: {self.path} was removed")
        try:
            policies = load_file(self.path, only_policies=self.only_policies)
        except PolicyError as exc:
            return Change(False, f"policies off: {exc}")
        return Change(True, f"policies re-read from {self.path} ({len(policies)})", policies)


class Switch:
    """On or off, and why. Every way of switching goes through here, so the journal and the
    status bar say the same thing."""

    def __init__(self, on: bool = False, why: str = "") -> None:
        self.on = on
        self.why = why

    def set(self, on: bool, why: str) -> bool:
        """True when this changed the switch."""
        changed = on != self.on
        self.on, self.why = on, why
        return changed

    def toggle(self, why: str) -> bool:
        self.set(not self.on, why)
        return self.on


def choose(policy: Path | None, config: Path, config_required: bool) -> tuple[PolicySet,
                                                                              PolicyFile | None]:
    """The policies in force and the file to watch: `--policy FILE`, else the config file's
    `[[policy]]` entries, else the recommended set (nothing to watch). PolicyError: one line."""
    if policy is not None:
        return load_file(policy), PolicyFile(policy)
    if config.exists() or config_required:
        policies = load_file(config, only_policies=False)
        if policies.source != "recommended":
            return policies, PolicyFile(config, only_policies=False)
        return policies, None
    return recommended(), None
