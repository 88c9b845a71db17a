"""`t3tui` with no subcommand: open the supervisor app.

Without a server (no `--url` and no `T3TUI_URL`/`T3CODE_URL`), start the embedded reference
backend on a free loopback port with the demo scenario, supervise it, and stop it on exit.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="T3 Code server base URL (env: T3TUI_URL, T3CODE_URL)")
    parser.add_argument(
        "--token", help="bearer token (env: T3TUI_TOKEN, T3CODE_TOKEN); never logged"
    )
    parser.add_argument(
        "--config", metavar="PATH", help="config file (default: ~/.config/t3tui/config.toml)"
    )
    parser.add_argument(
        "--scenario",
        default="demo",
        help="scenario for the embedded demo backend when no --url is given (default: demo)",
    )
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
        "--frames",
        metavar="NAME|PATH",
        help="replay recorded frames instead of connecting (read-only; e.g. showcase)",
    )


def run(args: argparse.Namespace) -> int:
    from t3tui.tui.main import run_app

    return run_app(args)
