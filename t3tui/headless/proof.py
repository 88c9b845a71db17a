"""Flags and glue for reading the provider's own records next to a headless command."""

from __future__ import annotations

import argparse

from t3tui.proof.feed import apply_records
from t3tui.proof.homes import ProofHomes, resolve_homes

__all__ = ["add_proof_arguments", "apply_records", "homes_from"]


def add_proof_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "proof from the machine",
        "read the providers' own session records (read-only) to prove a stuck turn",
    )
    group.add_argument(
        "--codex-home", metavar="DIR", default=None,
        help="Codex home with sessions/ and archived_sessions/ "
             "(env: T3TUI_CODEX_HOME, CODEX_HOME; default ~/.codex; 'off' skips Codex)",
    )
    group.add_argument(
        "--claude-home", metavar="DIR", default=None,
        help="Claude Code config dir with projects/ "
             "(env: T3TUI_CLAUDE_HOME, CLAUDE_CONFIG_DIR; default ~/.claude; 'off' skips Claude)",
    )
    group.add_argument(
        "--t3-home", metavar="DIR", default=None,
        help="T3's base or state dir, for its provider protocol logs "
             "(env: T3TUI_T3_HOME, T3CODE_HOME; default ~/.t3; 'off' skips them)",
    )
    group.add_argument(
        "--no-provider-records", dest="provider_records", action="store_false",
        help="do not read provider records at all (env: T3TUI_PROOF=0)",
    )


def homes_from(args: argparse.Namespace) -> ProofHomes:
    return resolve_homes(getattr(args, "codex_home", None), getattr(args, "claude_home", None),
                         enabled=getattr(args, "provider_records", True),
                         t3_home=getattr(args, "t3_home", None))
