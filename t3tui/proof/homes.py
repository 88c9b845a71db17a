"""Where the providers keep their records, per environment, and whether to look at all."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

OFF_WORDS = frozenset({"0", "off", "false", "no"})


@dataclass(frozen=True)
class ProofHomes:
    """The homes to read (None: that provider's records are not read)."""

    codex: Path | None
    claude: Path | None
    t3_logs: Path | None = None  # T3's provider protocol logs (<state>/logs/provider)
    t3_base: Path | None = None  # T3's base or state dir as given (its database is under it)

    @property
    def enabled(self) -> bool:
        return self.codex is not None or self.claude is not None

    def describe(self) -> str:
        if not self.enabled:
            return "provider records off"
        parts = [f"codex: {self.codex}" if self.codex else "codex: off",
                 f"claude: {self.claude}" if self.claude else "claude: off"]
        if self.t3_logs:
            parts.append(f"T3 protocol logs: {self.t3_logs}")
        return " · ".join(parts)


OFF = ProofHomes(None, None)


def t3_logs_dir(base: Path) -> Path:
    """T3's protocol log dir under a base dir (`~/.t3`) or a state dir (`~/.t3/userdata`)."""
    if (base / "userdata").is_dir():
        return base / "userdata" / "logs" / "provider"
    return base / "logs" / "provider"


def resolve_homes(codex: str | None = None, claude: str | None = None, *, enabled: bool = True,
                  env: Mapping[str, str] | None = None, t3_home: str | None = None) -> ProofHomes:
    """Flags > T3TUI_CODEX_HOME / T3TUI_CLAUDE_HOME / T3TUI_T3_HOME > the owner's own rule
    ($CODEX_HOME, else ~/.codex; $CLAUDE_CONFIG_DIR, else ~/.claude; $T3CODE_HOME, else ~/.t3). `T3TUI_PROOF=0` (or
    `enabled=False`) turns reading off; a home given as "" or "off" turns that provider off."""
    env = os.environ if env is None else env
    if not enabled or env.get("T3TUI_PROOF", "").strip().lower() in OFF_WORDS:
        return OFF
    home = Path(env.get("HOME") or Path.home())

    def pick(flag: str | None, ours: str, theirs: str, default: Path) -> Path | None:
        for value in (flag, env.get(ours), env.get(theirs)):
            if value is not None:
                if value.strip().lower() in ("", "off"):
                    return None
                return Path(value).expanduser()
        return default

    t3 = pick(t3_home, "T3TUI_T3_HOME", "T3CODE_HOME", home / ".t3")
    return ProofHomes(
        codex=pick(codex, "T3TUI_CODEX_HOME", "CODEX_HOME", home / ".codex"),
        claude=pick(claude, "T3TUI_CLAUDE_HOME", "CLAUDE_CONFIG_DIR", home / ".claude"),
        t3_logs=t3_logs_dir(t3) if t3 is not None else None,
        t3_base=t3,
    )
