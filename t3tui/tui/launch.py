"""`t3tui` with no subcommand: open the supervisor app.

Without a server (no `--url` and no `T3TUI_URL`/`T3CODE_URL`), start the embedded reference
backend on a free loopback port with the demo scenario, supervise it, and stop it on exit.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="T3 Code server base URL (env: T3TUI_URL, T3CODE_URL)")
    parser.add_argument(
        "--token", help="bearer token (env: T3TUI_TOKEN, T3CODE_TOKEN); never logged, but "
                        "visible to other local users in `ps`: prefer --token-file or the env"
    )
    parser.add_argument(
        "--token-file", metavar="PATH", help="read the bearer token from PATH (mode 0600)"
    )
    parser.add_argument(
        "--config", metavar="PATH", help="config file (default: ~/.config/t3tui/config.toml)"
    )
    add_env_argument(parser)
    parser.add_argument(
        "--scenario",
        help="scenario for one embedded demo backend when no server is given (default: two "
             "backends, 'laptop' on the demo scenario and 'devbox' on parallel-probe)",
    )
    proof = parser.add_argument_group(
        "proof from the machine", "read the providers' own session records (read-only)")
    proof.add_argument("--codex-home", metavar="DIR",
                       help="Codex home (env: T3TUI_CODEX_HOME, CODEX_HOME; default ~/.codex)")
    proof.add_argument("--claude-home", metavar="DIR",
                       help="Claude Code config dir (env: T3TUI_CLAUDE_HOME, CLAUDE_CONFIG_DIR; "
                            "default ~/.claude)")
    proof.add_argument("--t3-home", metavar="DIR",
                       help="T3's base or state dir, for its protocol logs (env: T3TUI_T3_HOME, "
                            "T3CODE_HOME; default ~/.t3)")
    proof.add_argument("--no-provider-records", dest="provider_records", action="store_false",
                       help="do not read provider records (env: T3TUI_PROOF=0)")
    proof.add_argument("--t3-db", nargs="?", const="", default=None, metavar="PATH",
                       help="post-mortem: open T3's own SQLite state read-only instead of a "
                            "server (default: under --t3-home, $T3CODE_HOME or ~/.t3)")
    proof.add_argument("--copy", action="store_true",
                       help="with --t3-db: copy the database and its WAL first")
    proof.add_argument("--at", metavar="TIME",
                       help="with --t3-db: the moment to show (ISO or HH:MM:SS UTC, +90s from "
                            "the first event, -30s from the last; default: now)")
    app = parser.add_argument_group("app (override the config file and T3TUI_* variables)")
    app.add_argument(
        "--key",
        dest="keys",
        action="append",
        metavar="ACTION=KEY",
        help="remap a key, repeatable, e.g. --key settle=S (actions: see ? in the app)",
    )
    app.add_argument(
        "--bell",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="ring the terminal bell on stuck / needs input / finished (default: on)",
    )
    app.add_argument("--theme", help="Textual theme name (default: textual-dark)")
    app.add_argument(
        "--checkin-timeout",
        type=float,
        metavar="S",
        help="seconds before a check-in counts as unanswered (default: 120)",
    )
    app.add_argument(
        "--replay",
        metavar="FILE",
        help="open a recording (t3tui record, --record) read-only on its own clock",
    )
    app.add_argument(
        "--record",
        metavar="FILE",
        help="also record the session to FILE (gzip NDJSON; never overwritten); with several "
             "environments one file each, the name inserted (FILE-NAME.ndjson.gz)",
    )
    act = parser.add_argument_group("acting by policy (README: Unattended supervision)")
    act.add_argument("--act", action="store_true",
                     help="start with the policies on (P switches them; default: off)")
    act.add_argument("--dry-run", action="store_true",
                     help="policies plan only: say what they would send, send nothing")
    act.add_argument("--policy", metavar="FILE",
                     help="the policies (TOML [[policy]] entries; default: the config "
                          "file's, else the recommended set)")
    app.add_argument(
        "--frames",
        metavar="NAME|PATH",
        help="replay recorded frames instead of connecting (read-only; e.g. showcase)",
    )


def add_env_argument(parser: argparse.ArgumentParser, **extra: object) -> None:
    parser.add_argument(
        "--env", dest="envs", action="append", metavar="NAME=URL", **extra,  # type: ignore[arg-type]
        help="supervise several servers, one tree node each (repeatable); token from "
             "T3TUI_TOKEN_<NAME> or [environments.NAME] token_command in the config file; "
             "--env NAME alone takes its url from there too",
    )


def run(args: argparse.Namespace) -> int:
    from t3tui.tui.main import run_app

    return run_app(args)
